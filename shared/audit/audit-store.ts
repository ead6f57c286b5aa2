/**
 * The audit table's adapters: the audit log (each organization's records over {@link AUDIT_SHARDS}
 * partitions) and the usage rollup beside it ({@link DynamoUsageRollupStore}).
 */
import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidInput, Overloaded } from '../platform/errors.js';
import type { AuditRecord } from './model.js';
import type { AuditPage, AuditQuery, AuditReader, AuditStore, RefusalCountChange, RefusalKind, UsageRollupStore } from './ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { hasTimeForCall, type StoreOptions } from '../platform/dynamo/client.js';

/**
 * Partitions each organization's audit log is written across. A partition takes 1,000 writes a
 * second and a time-ordered sort key keeps DynamoDB from splitting it for heat (every write lands
 * at its end), so one org's audited calls top out at 8 × 1,000 a second; one key at its decided
 * maximum (1,667 a second) takes a quarter of that. A page of the log costs one query per shard,
 * all in one round trip.
 */
export const AUDIT_SHARDS = 8;

/**
 * The shard a request's audit record goes to first (by its unique id: the gateway's, see
 * {@link recordId}): a rewrite with the real outcome overwrites it.
 */
export function auditShard(requestId: string): number {
  return createHash('sha256').update(requestId).digest().readUInt32BE(0) % AUDIT_SHARDS;
}

/** Partition key of an audit record on its first shard. */
export function auditPartition(orgId: number, requestId: string): string {
  return `${orgId}#${auditShard(requestId)}`;
}

/**
 * The id that makes a record's item unique: the gateway's id of its request. `request_id` is the
 * caller's `x-request-id` when it chose one, which two requests may share (docs/decisions.md#audit).
 */
function recordId(record: Pick<AuditRecord, 'request_id' | 'gateway_request_id'>): string {
  return record.gateway_request_id ?? record.request_id;
}

/** Sort key of an audit record: time first (newest-first queries), its request's unique id. */
function auditSortKey(record: Pick<AuditRecord, 'at' | 'request_id' | 'gateway_request_id'>): string {
  return `${record.at}#${recordId(record)}`;
}

/** How much a filtered page (key, action or outcome) reads at most: reads per shard, of this many records each. */
const KEY_FILTER_READS = { batch: 500, reads: 4 } as const;

/** The filters of a query, by the name its cursor keeps them under. */
function filtersOf(query: AuditQuery): Record<string, string | number> {
  const { key_id, action, outcome } = query;
  return {
    ...(key_id !== undefined && { key_id }),
    ...(action !== undefined && { action }),
    ...(outcome !== undefined && { outcome }),
  };
}

/** The FilterExpression of a query's filters (undefined: none), with its names and values. */
function filterExpression(
  query: AuditQuery,
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (query.key_id !== undefined) {
    parts.push('key_id = :key');
    values[':key'] = query.key_id;
  }
  if (query.action !== undefined) {
    parts.push('#action = :action');
    Object.assign(names, { '#action': 'action' });
    values[':action'] = query.action;
  }
  if (query.outcome !== undefined) {
    parts.push(query.outcome === 'success' ? '#status < :refused' : '#status >= :refused');
    Object.assign(names, { '#status': 'status' });
    values[':refused'] = 400;
  }
  return parts.length === 0 ? undefined : { expression: parts.join(' AND '), names, values };
}

/** What one shard's reads for a page found. */
interface ShardRead {
  readonly items: Record<string, unknown>[];
  /** Sort key below which this shard was not read (it has more), or undefined when it is exhausted. */
  readonly unreadBelow: string | undefined;
}

/** The audit log in DynamoDB, each organization's records spread over {@link AUDIT_SHARDS} partitions. */
export class DynamoAuditStore implements AuditStore, AuditReader {
  constructor(
    private readonly options: StoreOptions,
    private readonly keyFilter: { readonly batch: number; readonly reads: number } = KEY_FILTER_READS,
  ) {}

  /**
   * Put a record on its shard (chosen by its request id), or, when that shard stays throttled
   * through the retries (a hot partition: a throttled write was not applied), on the next one; a
   * record already placed (a rewrite) goes where it is.
   */
  async put(record: AuditRecord, ttl: number): Promise<AuditRecord> {
    const home = record.shard ?? auditShard(recordId(record));
    try {
      await this.write(record, ttl, home);
      return { ...record, shard: home };
    } catch (error) {
      if (record.shard !== undefined || !(error instanceof Overloaded)) throw error;
      const next = (home + 1) % AUDIT_SHARDS;
      await this.write(record, ttl, next);
      return { ...record, shard: next };
    }
  }

  async remove(placed: AuditRecord): Promise<void> {
    const shard = placed.shard ?? auditShard(recordId(placed));
    await this.options.client.send(
      new DeleteCommand({ TableName: this.options.tableName, Key: { pk: `${placed.org_id}#${shard}`, sk: auditSortKey(placed) } }),
    );
  }

  private async write(record: AuditRecord, ttl: number, shard: number): Promise<void> {
    // Records without a key carry no `key_id` at all (the key filter then never matches them).
    const { key_id, minted_token, shard: _placed, ...rest } = record;
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          ...rest,
          ...(key_id === null ? {} : { key_id }),
          // The session report finds an org's tokens through successful mints' records (`token-report-store.ts`).
          ...(minted_token ? { minted_token } : {}),
          pk: `${record.org_id}#${shard}`,
          sk: auditSortKey(record),
          [TTL_ATTRIBUTE]: ttl,
        },
      }),
    );
  }

  /**
   * A page of an organization's log, newest first: every shard read below the cursor in parallel,
   * merged. A page never passes a shard's unread part (a record there would be skipped), so it may
   * hold fewer than `limit` records while its cursor still leads on (the key filter reads at most
   * {@link KEY_FILTER_READS} per shard: 2,000 records, 16,000 a page, fewer when the request's
   * deadline leaves no time for another read; with no time for the first, the page is `Overloaded`).
   */
  async page(query: AuditQuery): Promise<AuditPage> {
    const below = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query);
    const shards = await Promise.all(Array.from({ length: AUDIT_SHARDS }, (_, shard) => this.readShard(query, shard, below)));
    // Nothing below the highest unread position may be shown yet: the next page starts there.
    const floor = shards.reduce<string | undefined>(
      (max, s) => (s.unreadBelow !== undefined && (max === undefined || s.unreadBelow > max) ? s.unreadBelow : max),
      undefined,
    );
    const merged = shards
      .flatMap((s) => s.items)
      .filter((item) => floor === undefined || (item.sk as string) >= floor)
      .sort((a, b) => ((a.sk as string) < (b.sk as string) ? 1 : -1));
    const records = merged.slice(0, query.limit);
    const more = merged.length > query.limit || floor !== undefined;
    // Everything above the last record shown has been shown: the next page reads below it.
    const next = more ? ((records.at(-1)?.sk as string | undefined) ?? floor) : undefined;
    return { records: records.map(toAuditRecord), cursor: next === undefined ? null : encodeCursor(query, next) };
  }

  /** Up to `limit` matching records of one shard below `below`, newest first. */
  private async readShard(query: AuditQuery, shard: number, below: string | undefined): Promise<ShardRead> {
    const filter = filterExpression(query);
    const filtered = filter !== undefined;
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    for (let read = 0; read < (filtered ? this.keyFilter.reads : 1); read++) {
      // A further read starts only while the request's deadline leaves it time: the page then ends
      // where this shard was read to, and its cursor leads on from there.
      if (read > 0 && !hasTimeForCall(this.options.client)) break;
      const { Items = [], LastEvaluatedKey } = await this.options.client.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: below === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :below',
          ...(filter && { FilterExpression: filter.expression }),
          ...(filter && Object.keys(filter.names).length > 0 && { ExpressionAttributeNames: filter.names }),
          ExpressionAttributeValues: {
            ':pk': `${query.org_id}#${shard}`,
            ...(below === undefined ? {} : { ':below': below }),
            ...filter?.values,
          },
          ScanIndexForward: false,
          Limit: filtered ? this.keyFilter.batch : query.limit,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...Items);
      if (!LastEvaluatedKey) return { items, unreadBelow: undefined };
      if (items.length >= query.limit) break;
      start = LastEvaluatedKey;
    }
    // Read this far: everything of this shard at or above the last key examined is in `items`.
    const lastSeen = (start ?? {}).sk as string | undefined;
    const examined = items.length >= query.limit ? (items[query.limit - 1]!.sk as string) : lastSeen;
    return { items: items.slice(0, query.limit), unreadBelow: examined };
  }
}

/** Sort keys are `<ISO time>#<request id>`; request ids are at most 128 printable characters. */
const SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[\x21-\x7e]{1,128}$/;

/** A page position for clients: the last sort key shown, bound to the query, as opaque base64url. */
function encodeCursor(query: AuditQuery, sk: string): string {
  return Buffer.from(JSON.stringify({ org_id: query.org_id, sk, ...filtersOf(query) })).toString('base64url');
}

/**
 * The sort key a cursor stands for, accepted only when it is a position of this very query (same
 * org, same filters) and every field is of the shape this service writes: a forged or foreign
 * cursor is a 400, never a read elsewhere or a 500 (an over-long key would be refused by DynamoDB).
 */
function decodeCursor(cursor: string, query: AuditQuery): string {
  let start: unknown;
  try {
    start = cursor.length <= 1024 ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    start = undefined;
  }
  const s = start as Record<string, unknown> | null | undefined;
  const names = s && typeof s === 'object' && !Array.isArray(s) ? Object.keys(s).sort().join(',') : '';
  const filters = filtersOf(query);
  const ok =
    s &&
    names === ['org_id', 'sk', ...Object.keys(filters)].sort().join(',') &&
    s.org_id === query.org_id &&
    Object.entries(filters).every(([name, value]) => s[name] === value) &&
    typeof s.sk === 'string' &&
    SORT_KEY.test(s.sk);
  if (!ok) throw new InvalidInput('cursor: not a cursor of this audit-log query');
  return s.sk as string;
}

function toAuditRecord(item: Record<string, unknown>): AuditRecord {
  const { pk: _pk, sk: _sk, minted_token: _minted, [TTL_ATTRIBUTE]: _ttl, ...record } = item;
  return { key_id: null, ...record } as unknown as AuditRecord;
}

/** An id as a fixed-width sort-key part. */
const pad = (id: number | null): string => String(id ?? 0).padStart(16, '0');

/** The sort key's letter of each kind. */
export const KIND_LETTER: Readonly<Record<RefusalKind, string>> = { forbidden: 'f', rate_limited: 'l' };

/**
 * The usage rollup in the audit table, beside the audit records it counts: one small counter item
 * per org, UTC day, kind, key, game or stream, and shard (`pk` = `usage#<org>#<shard>`, `sk` =
 * `<day>#<kind>#<key>#<target>`), added to as refused calls happen. The shard is the refused call's
 * audit shard (of its request id: a throttled audit write may move to the next shard, its count
 * does not), so a rollup partition takes about the writes of the audit partition beside it
 * (1,000 a second at most: {@link AUDIT_SHARDS}); a counter item is a few dozen bytes, so
 * each addition is one write unit. A report reads the range of days with one query per shard
 * (`usage-rollup-reads.ts`: apart, so that the functions that only count carry no paging code).
 * The sort key says everything but the count, so an item holds no attribute of an audit record's
 * (no `key_id`: a scan of the log for a key's records never meets it; the audit log's queries
 * never read `usage#` partitions). The items expire with the audit records of their day.
 */
export class DynamoUsageRollupStore implements Pick<UsageRollupStore, 'addRefusals'> {
  constructor(private readonly options: StoreOptions) {}

  async addRefusals(change: RefusalCountChange, ttl: number): Promise<void> {
    const target = change.game_id !== null ? `g${pad(change.game_id)}` : change.stream_id !== null ? `s${pad(change.stream_id)}` : 'n';
    await this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: {
          pk: `usage#${change.org_id}#${auditShard(change.spread)}`,
          sk: `${change.day}#${KIND_LETTER[change.kind]}#${pad(change.key_id)}#${target}`,
        },
        // Not idempotent (an ADD repeated counts twice), so never retried after a lost answer (dynamo-client.ts).
        UpdateExpression: 'ADD #count :n SET #ttl = :ttl',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':n': change.count, ':ttl': ttl },
      }),
    );
  }
}
