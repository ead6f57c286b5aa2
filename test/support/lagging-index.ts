/**
 * Eventually consistent indexes, on any backend. DynamoDB updates a global secondary index a moment
 * after the table (usually well under a second, unbounded in principle); dynalite and DynamoDB Local
 * update it at once, so nothing in the suite would notice code that reads its own write through an
 * index. This layer wraps the service's document client: while frozen, every `Query` with an
 * `IndexName` is answered from a copy of the table taken at {@link LaggingIndexes.freeze} (the
 * index as it stood then), while every other call goes to the table as usual.
 */
import { QueryCommand, ScanCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { logicalTableName } from '../../infra/local/table-names.js';
import { tables, type TableDefinition, type TableName } from '../../shared/tables.js';

type Item = Record<string, unknown>;

/** Control of the lagging indexes of one client. */
export interface LaggingIndexes {
  /** From now on, index queries see the tables as they are now (until {@link release}). */
  freeze(): Promise<void>;
  /** Index queries see the tables again. */
  release(): void;
  /** How many index queries were answered from the frozen copy. */
  readonly served: number;
}

/** Wrap `client.send` so that its index queries can be made to lag. */
export function lagIndexes(client: DynamoDBDocumentClient, tableNames: readonly string[]): LaggingIndexes {
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  let frozen: Map<string, Item[]> | undefined;
  let served = 0;
  (client as { send: unknown }).send = async (command: unknown) => {
    if (frozen && command instanceof QueryCommand && command.input.IndexName) {
      served++;
      return { Items: answer(frozen.get(command.input.TableName ?? '') ?? [], command.input), $metadata: {} };
    }
    return send(command);
  };
  return {
    async freeze() {
      const copy = new Map<string, Item[]>();
      for (const name of tableNames) {
        const { Items } = (await send(new ScanCommand({ TableName: name, ConsistentRead: true }))) as { Items?: Item[] };
        copy.set(name, Items ?? []);
      }
      frozen = copy;
    },
    release() {
      frozen = undefined;
    },
    get served() {
      return served;
    },
  };
}

/** The items of `copy` that the query's key condition selects (equality terms only), in index order. */
function answer(copy: readonly Item[], input: QueryCommandInput): Item[] {
  const definition = tables[logicalTableName(input.TableName ?? '') as TableName] as TableDefinition | undefined;
  const index = definition?.indexes.find((i) => i.name === input.IndexName);
  if (!index) throw new Error(`lagging index: no index ${input.IndexName} on ${input.TableName}`);
  const terms = (input.KeyConditionExpression ?? '').split(/\s+AND\s+/i).map((term) => {
    const match = /^\s*(#?\w+)\s*=\s*(:\w+)\s*$/.exec(term);
    // Only what the service asks of its indexes today; anything else fails the test loudly.
    if (!match) throw new Error(`lagging index: unsupported key condition ${input.KeyConditionExpression}`);
    const name = input.ExpressionAttributeNames?.[match[1]!] ?? match[1]!;
    return [name, input.ExpressionAttributeValues?.[match[2]!]] as const;
  });
  const sortKey = index.sortKey?.name;
  const selected = copy.filter(
    (item) =>
      item[index.partitionKey.name] !== undefined && (!sortKey || item[sortKey] !== undefined) && terms.every(([n, v]) => item[n] === v),
  );
  if (sortKey) selected.sort((a, b) => (a[sortKey]! < b[sortKey]! ? -1 : a[sortKey]! > b[sortKey]! ? 1 : 0));
  return input.ScanIndexForward === false ? selected.reverse() : selected;
}
