/**
 * Capacity units per call, as DynamoDB on demand would bill them. The embedded DynamoDB answers
 * `ReturnConsumedCapacity` for the table itself (reads: 4 KB units, halved when eventually
 * consistent; writes: 1 KB units of the larger of the old and new item) but never charges index
 * writes (DynamoDB Local does; its table part is read apart), so those are modelled here from THE tables table and the item images before and after
 * each write, read on the side (outside the service's client, inside the call's interval):
 * an item entering or leaving an index costs one index write, an index key change two, a change of
 * a projected attribute one (every attribute under ALL, none beyond the keys under KEYS_ONLY).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableDefinitionOf } from '../../infra/local/table-names.js';
import type { IndexDefinition, TableDefinition } from '../../shared/tables.js';
import type { RoundTrip, RoundTripProbe } from '../support/round-trips.js';

type Item = Record<string, unknown>;

/** Read and write capacity units of one call or request. */
export interface CapacityUse {
  read: number;
  write: number;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/** The probe to give a {@link RoundTripRecorder}: it asks for consumed capacity and reads item images. */
export class CapacityProbe implements RoundTripProbe {
  private readonly before_ = new WeakMap<RoundTrip, Item | undefined>();
  private readonly indexUnits = new WeakMap<RoundTrip, number>();

  constructor(private readonly raw: DynamoDBDocumentClient) {}

  prepare(input: Record<string, unknown>): Record<string, unknown> {
    // INDEXES: a write's own table units apart from its index units, which DynamoDB Local reports
    // and dynalite does not; the index units are modelled on both backends alike (below), so the
    // two backends' figures agree.
    return { ...input, ReturnConsumedCapacity: 'INDEXES' };
  }

  async before(call: RoundTrip): Promise<void> {
    const def = indexedTable(call);
    if (def) this.before_.set(call, await this.image(def, call));
  }

  async after(call: RoundTrip): Promise<void> {
    const def = indexedTable(call);
    if (!def) return;
    const after =
      call.action === 'PutItem' ? (call.input.Item as Item) : call.action === 'DeleteItem' ? undefined : await this.image(def, call);
    this.indexUnits.set(call, indexWriteUnits(def, this.before_.get(call), after));
  }

  /** What a recorded call costs. */
  use(call: RoundTrip): CapacityUse {
    const consumed = [call.output?.ConsumedCapacity].flat() as (
      { CapacityUnits?: number; Table?: { CapacityUnits?: number } } | undefined
    )[];
    // A read is billed where it reads (a Query of an index: the index's units): its total.
    if (READS.has(call.action)) return { read: consumed.reduce((sum, c) => sum + (c?.CapacityUnits ?? 0), 0), write: 0 };
    const table = consumed.reduce((sum, c) => sum + (c?.Table?.CapacityUnits ?? c?.CapacityUnits ?? 0), 0);
    // A refused conditional write is billed too (at least one unit); the embedded DynamoDB reports none.
    const tableWrite = call.error ? Math.max(1, table) : table;
    return { read: 0, write: tableWrite + (this.indexUnits.get(call) ?? 0) };
  }

  /** The sum over a request's calls. */
  total(calls: readonly RoundTrip[]): CapacityUse {
    return calls.reduce<CapacityUse>(
      (sum, c) => {
        const u = this.use(c);
        return { read: sum.read + u.read, write: sum.write + u.write };
      },
      { read: 0, write: 0 },
    );
  }

  private async image(def: TableDefinition, call: RoundTrip): Promise<Item | undefined> {
    const source = (call.input.Key ?? call.input.Item) as Item;
    const Key = Object.fromEntries([def.partitionKey, def.sortKey].filter((k) => k).map((k) => [k!.name, source[k!.name]]));
    const { Item } = await this.raw.send(new GetCommand({ TableName: call.input.TableName as string, Key, ConsistentRead: true }));
    return Item;
  }
}

function indexedTable(call: RoundTrip): TableDefinition | undefined {
  if (!WRITES.has(call.action) || !call.table) return undefined;
  const def = tableDefinitionOf(call.table);
  return def && def.indexes.length > 0 ? def : undefined;
}

/** Index write units of one write that changed an item from `before` to `after` (absent: no item). */
function indexWriteUnits(def: TableDefinition, before: Item | undefined, after: Item | undefined): number {
  let units = 0;
  for (const index of def.indexes) {
    const keys = [index.partitionKey, index.sortKey].filter((k) => k).map((k) => k!.name);
    const inBefore = before !== undefined && keys.every((k) => before[k] !== undefined && before[k] !== null);
    const inAfter = after !== undefined && keys.every((k) => after[k] !== undefined && after[k] !== null);
    const size = (item: Item) => Math.max(1, Math.ceil(itemBytes(projected(def, index, item)) / 1024));
    if (inBefore && inAfter) {
      const moved = keys.some((k) => !same(before[k], after[k]));
      if (moved) units += size(before) + size(after);
      else if (!same(projected(def, index, before), projected(def, index, after))) units += size(after);
    } else if (inBefore) {
      units += size(before);
    } else if (inAfter) {
      units += size(after);
    }
  }
  return units;
}

/** The part of an item an index holds. */
function projected(def: TableDefinition, index: IndexDefinition, item: Item): Item {
  const projection = index.projection ?? 'ALL';
  if (projection === 'ALL') return item;
  const names = [def.partitionKey, def.sortKey, index.partitionKey, index.sortKey].filter((k) => k).map((k) => k!.name);
  const included = typeof projection === 'object' ? projection.include : [];
  return Object.fromEntries([...names, ...included].filter((n) => item[n] !== undefined).map((n) => [n, item[n]]));
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** DynamoDB's item size: attribute names plus values (strings in UTF-8, numbers ~1 byte per 2 digits). */
export function itemBytes(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').replace(/^0+/, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value) || value instanceof Set) return 3 + [...value].reduce((s: number, v) => s + 1 + valueBytes(v), 0);
  return 3 + Object.entries(value as Item).reduce((s, [k, v]) => s + Buffer.byteLength(k) + 1 + valueBytes(v), 0);
}
