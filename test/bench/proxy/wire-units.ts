/**
 * What a DynamoDB call costs, and on which partition, read from the JSON protocol itself (the
 * request a client sends and the answer it gets): the proxy (./dynamo-proxy.ts) charges these to
 * per-partition buckets. Rules (DynamoDB on demand): a read is 4 KB units of what it returned
 * (a Query: of all its items together), at least one, halved when eventually consistent (index
 * reads always are); a write is 1 KB units of the item, at least one (a refused conditional write
 * too); a write also writes each global secondary index holding the item, on the index's
 * partition of the item's index key (KEYS_ONLY: the keys' size). Transactions and Scans are not
 * modelled: the only transaction is an admin's new key (create-key, rotate-key), which no scenario
 * loads, and no request path scans (the local TTL sweeper does).
 */
import type { IndexDefinition, TableDefinition } from '../../../shared/tables.js';
import { tableDefinitionOf } from '../../../infra/local/table-names.js';

/** An attribute value on the wire (`{"S": "..."}`, `{"N": "1"}`, `{"M": {...}}`, ...). */
export type WireValue = Record<string, unknown>;
/** An item or key on the wire. */
export type WireItem = Record<string, WireValue>;

/** Units charged (or estimated) to one partition of a table or index. */
export interface Charge {
  /** `table` or `table/index`. */
  readonly resource: string;
  /** The partition key value (its wire form as JSON). */
  readonly partition: string;
  readonly kind: 'read' | 'write';
  readonly units: number;
}

/** DynamoDB's item size: attribute names plus values. */
export function wireItemBytes(item: WireItem | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + wireValueBytes(v), 0);
}

function wireValueBytes(v: WireValue): number {
  if ('S' in v) return Buffer.byteLength(v.S as string);
  if ('N' in v) return numberBytes(v.N as string);
  if ('B' in v) return Buffer.from(v.B as string, 'base64').length;
  if ('SS' in v) return (v.SS as string[]).reduce((s, x) => s + Buffer.byteLength(x), 0);
  if ('NS' in v) return (v.NS as string[]).reduce((s, x) => s + numberBytes(x), 0);
  if ('BS' in v) return (v.BS as string[]).reduce((s, x) => s + Buffer.from(x, 'base64').length, 0);
  if ('M' in v) return 3 + Object.entries(v.M as WireItem).reduce((s, [k, x]) => s + Buffer.byteLength(k) + 1 + wireValueBytes(x), 0);
  if ('L' in v) return 3 + (v.L as WireValue[]).reduce((s, x) => s + 1 + wireValueBytes(x), 0);
  return 1; // BOOL, NULL
}

/** Numbers: about one byte per two significant digits, plus one. */
function numberBytes(n: string): number {
  return Math.ceil(n.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length / 2) + 1;
}

const kb = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

/** What the proxy needs to know of a call besides its input and output. */
export interface CallContext {
  /** Index partitions last seen per item (`table|key`), for writes that do not carry the item. */
  readonly indexPartitions: Map<string, Record<string, string>>;
  /** The item after an UpdateItem, when {@link needsImage} asked for it. */
  readonly after?: WireItem | undefined;
}

/** The table definition of a physical table name, if the service has it. */
function tableOf(name: unknown): TableDefinition | undefined {
  return typeof name === 'string' ? tableDefinitionOf(name) : undefined;
}

/** Whether an UpdateItem may change what an index holds, so the proxy must read the item after it. */
export function needsImage(op: string, input: Record<string, unknown>): boolean {
  if (op !== 'UpdateItem') return false;
  const def = tableOf(input.TableName);
  if (!def || def.indexes.length === 0) return false;
  const names = new Set(attributeNames(input));
  return def.indexes.some((i) => (i.projection ?? 'ALL') === 'ALL' || [...indexKeys(i), ...included(i)].some((k) => names.has(k)));
}

/** The charges of one call: estimated (no output yet) or actual (with the answer). */
export function charges(
  op: string,
  input: Record<string, unknown>,
  output: Record<string, unknown> | undefined,
  ctx: CallContext,
): Charge[] {
  const table = input.TableName as string;
  const def = tableOf(table);
  switch (op) {
    case 'GetItem': {
      if (!def) return [];
      const factor = input.ConsistentRead ? 1 : 0.5;
      const units = output ? factor * kb(wireItemBytes(output.Item as WireItem | undefined), 4096) : factor;
      return [read(table, partitionOf(input.Key as WireItem, def.partitionKey.name), units)];
    }
    case 'Query': {
      if (!def) return [];
      const index = def.indexes.find((i) => i.name === input.IndexName);
      const pk = index ? index.partitionKey.name : def.partitionKey.name;
      const factor = input.ConsistentRead && !index ? 1 : 0.5;
      const bytes = ((output?.Items as WireItem[] | undefined) ?? []).reduce((s, i) => s + wireItemBytes(i), 0);
      const value = queryPartition(input, pk);
      return [read(index ? `${table}/${index.name}` : table, value, factor * (output ? kb(bytes, 4096) : 1))];
    }
    case 'BatchGetItem': {
      const out: Charge[] = [];
      for (const [name, request] of Object.entries(input.RequestItems as Record<string, { Keys: WireItem[]; ConsistentRead?: boolean }>)) {
        const d = tableOf(name);
        if (!d) continue;
        const factor = request.ConsistentRead ? 1 : 0.5;
        const returned = new Map(
          (((output?.Responses as Record<string, WireItem[]> | undefined) ?? {})[name] ?? []).map((item) => [
            partitionOf(item, d.partitionKey.name),
            item,
          ]),
        );
        for (const key of request.Keys) {
          const p = partitionOf(key, d.partitionKey.name);
          out.push(read(name, p, factor * (output ? kb(wireItemBytes(returned.get(p)), 4096) : 1)));
        }
      }
      return out;
    }
    case 'PutItem':
      return def ? putCharges(table, def, input.Item as WireItem, ctx) : [];
    case 'UpdateItem':
    case 'DeleteItem': {
      if (!def) return [];
      const key = input.Key as WireItem;
      const after = op === 'UpdateItem' ? ctx.after : undefined;
      const out = [write(table, partitionOf(key, def.partitionKey.name), after ? kb(wireItemBytes(after), 1024) : 1)];
      const known = after ? indexPartitionsOf(def, after) : ctx.indexPartitions.get(itemId(table, key));
      if (after) ctx.indexPartitions.set(itemId(table, key), known!);
      const touched = op === 'DeleteItem' || needsImage(op, input);
      for (const index of touched ? def.indexes : []) {
        const p = known?.[index.name];
        if (p !== undefined)
          out.push(write(`${table}/${index.name}`, p, after ? kb(wireItemBytes(projected(def, index, after)), 1024) : 1));
      }
      return out;
    }
    case 'BatchWriteItem': {
      const out: Charge[] = [];
      for (const [name, requests] of Object.entries(
        input.RequestItems as Record<string, Record<string, { Item?: WireItem; Key?: WireItem }>[]>,
      )) {
        const d = tableOf(name);
        if (!d) continue;
        for (const r of requests) {
          if (r.PutRequest?.Item) out.push(...putCharges(name, d, r.PutRequest.Item, ctx));
          else if (r.DeleteRequest?.Key) out.push(write(name, partitionOf(r.DeleteRequest.Key, d.partitionKey.name), 1));
        }
      }
      return out;
    }
    default:
      return [];
  }
}

function putCharges(table: string, def: TableDefinition, item: WireItem, ctx: CallContext): Charge[] {
  const out = [write(table, partitionOf(item, def.partitionKey.name), kb(wireItemBytes(item), 1024))];
  const partitions = indexPartitionsOf(def, item);
  if (def.indexes.length) ctx.indexPartitions.set(itemId(table, keyOf(def, item)), partitions);
  for (const index of def.indexes) {
    const p = partitions[index.name];
    if (p !== undefined) out.push(write(`${table}/${index.name}`, p, kb(wireItemBytes(projected(def, index, item)), 1024)));
  }
  return out;
}

const read = (resource: string, partition: string, units: number): Charge => ({ resource, partition, kind: 'read', units });
const write = (resource: string, partition: string, units: number): Charge => ({ resource, partition, kind: 'write', units });

function partitionOf(item: WireItem, attribute: string): string {
  return JSON.stringify(item[attribute] ?? null);
}

function indexKeys(index: IndexDefinition): string[] {
  return [index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])];
}

/** The index partitions an item sits in (an item lacking an index key is not in that index). */
function indexPartitionsOf(def: TableDefinition, item: WireItem): Record<string, string> {
  const out: Record<string, string> = {};
  for (const index of def.indexes)
    if (indexKeys(index).every((k) => item[k] !== undefined)) out[index.name] = partitionOf(item, index.partitionKey.name);
  return out;
}

function keyOf(def: TableDefinition, item: WireItem): WireItem {
  const names = [def.partitionKey.name, ...(def.sortKey ? [def.sortKey.name] : [])];
  return Object.fromEntries(names.map((n) => [n, item[n]!]));
}

function itemId(table: string, key: WireItem): string {
  return `${table}|${JSON.stringify(key)}`;
}

/** The non-key attributes an `INCLUDE` index projects (none for `ALL` or `KEYS_ONLY`). */
function included(index: IndexDefinition): readonly string[] {
  return typeof index.projection === 'object' ? index.projection.include : [];
}

function projected(def: TableDefinition, index: IndexDefinition, item: WireItem): WireItem {
  if ((index.projection ?? 'ALL') === 'ALL') return item;
  const names = new Set([def.partitionKey.name, ...(def.sortKey ? [def.sortKey.name] : []), ...indexKeys(index), ...included(index)]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => names.has(k)));
}

/** Attribute names an update or condition mentions (placeholders resolved). */
function attributeNames(input: Record<string, unknown>): string[] {
  const names = (input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const text = [input.UpdateExpression, input.ConditionExpression].filter((x) => typeof x === 'string').join(' ');
  return (text.match(/#?[A-Za-z_][\w]*/g) ?? []).map((w) => (w.startsWith('#') ? (names[w] ?? w) : w));
}

/** The partition key value a Query's key condition names (`#pk = :v` or `pk = :v`). */
function queryPartition(input: Record<string, unknown>, pk: string): string {
  const names = (input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const values = (input.ExpressionAttributeValues as WireItem | undefined) ?? {};
  for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    const name = m[1]!.startsWith('#') ? names[m[1]!] : m[1];
    if (name === pk) return JSON.stringify(values[m[2]!] ?? null);
  }
  return 'null';
}
