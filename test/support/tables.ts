/**
 * Whole-table snapshots of a stack's DynamoDB (Scan through the document client) and their
 * difference, for tests that must prove what a batch of requests changed and what it did not.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { tables, type TableName } from '../../shared/tables.js';
import type { Stack } from './local-stack.js';

type Item = Record<string, unknown>;

/** Every item of every table, by table and by the item's key (as text). */
export type Snapshot = Record<TableName, Map<string, Item>>;

/** What changed in one table between two snapshots. */
export interface TableChange {
  readonly added: Item[];
  readonly removed: Item[];
  readonly changed: { before: Item; after: Item }[];
}

/** The key of an item as text: its partition and sort key values. */
function keyOf(name: TableName, item: Item): string {
  const def = tables[name] as { partitionKey: { name: string }; sortKey?: { name: string } };
  return JSON.stringify([item[def.partitionKey.name], def.sortKey ? item[def.sortKey.name] : null]);
}

/** Scan every table (strongly consistent, all pages). */
export async function snapshotTables(stack: Stack): Promise<Snapshot> {
  const entries = await Promise.all(
    (Object.keys(tables) as TableName[]).map(async (name) => {
      const items = new Map<string, Item>();
      let ExclusiveStartKey: Item | undefined;
      do {
        const page = await stack.services.client.send(
          new ScanCommand({ TableName: stack.tableNames[name], ConsistentRead: true, ExclusiveStartKey }),
        );
        for (const item of page.Items ?? []) items.set(keyOf(name, item), item);
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return [name, items] as const;
    }),
  );
  return Object.fromEntries(entries) as Snapshot;
}

/** The difference between two snapshots, per table. */
export function diffTables(before: Snapshot, after: Snapshot): Record<TableName, TableChange> {
  const result = {} as Record<TableName, TableChange>;
  for (const name of Object.keys(tables) as TableName[]) {
    const change: TableChange = { added: [], removed: [], changed: [] };
    for (const [key, item] of after[name]) {
      const old = before[name].get(key);
      if (!old) change.added.push(item);
      else if (canonical(old) !== canonical(item)) change.changed.push({ before: old, after: item });
    }
    for (const [key, item] of before[name]) if (!after[name].has(key)) change.removed.push(item);
    result[name] = change;
  }
  return result;
}

/** JSON with object keys sorted, so that attribute order never reads as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}
