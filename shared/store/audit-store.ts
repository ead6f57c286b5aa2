import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidInput } from '../domain/errors.js';
import type { AuditRecord } from '../domain/model.js';
import type { AuditPage, AuditQuery, AuditReader, AuditStore } from '../domain/ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import type { StoreOptions } from './dynamo-client.js';

/** Sort key of an audit record: time first (newest-first queries), request id for uniqueness. */
export function auditSortKey(record: Pick<AuditRecord, 'at' | 'request_id'>): string {
  return `${record.at}#${record.request_id}`;
}

/** The audit log in DynamoDB, partitioned by organization. */
export class DynamoAuditStore implements AuditStore, AuditReader {
  constructor(private readonly options: StoreOptions) {}

  async put(record: AuditRecord, ttl: number): Promise<void> {
    // Records without a key carry no `key_id` at all (the key filter then never matches them).
    const { key_id, ...rest } = record;
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { ...rest, ...(key_id === null ? {} : { key_id }), sk: auditSortKey(record), [TTL_ATTRIBUTE]: ttl },
      }),
    );
  }

  /**
   * A page of an organization's log, newest first. The key filter reads the org's partition and
   * filters it (no index on `key_id`: an index would add a write to every audited call, to serve a
   * rare read), several reads per page at most; a page may then hold fewer records than `limit`
   * while its cursor still leads on.
   */
  async page(query: AuditQuery): Promise<AuditPage> {
    const start = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query);
    const base = {
      TableName: this.options.tableName,
      KeyConditionExpression: 'org_id = :org',
      ScanIndexForward: false,
    };
    if (query.key_id === undefined) {
      const { Items, LastEvaluatedKey } = await this.options.client.send(
        new QueryCommand({ ...base, ExpressionAttributeValues: { ':org': query.org_id }, Limit: query.limit, ExclusiveStartKey: start }),
      );
      return { records: (Items ?? []).map(toAuditRecord), cursor: LastEvaluatedKey ? encodeCursor(LastEvaluatedKey) : null };
    }
    const records: Record<string, unknown>[] = [];
    let position: Record<string, unknown> | undefined = start && { org_id: start.org_id, sk: start.sk };
    for (let read = 0; read < KEY_FILTER_READS; read++) {
      const { Items = [], LastEvaluatedKey } = await this.options.client.send(
        new QueryCommand({
          ...base,
          FilterExpression: 'key_id = :key',
          ExpressionAttributeValues: { ':org': query.org_id, ':key': query.key_id },
          Limit: KEY_FILTER_BATCH,
          ExclusiveStartKey: position,
        }),
      );
      const wanted = query.limit - records.length;
      records.push(...Items.slice(0, wanted));
      if (Items.length >= wanted) {
        // The page is full: it ends at its last record, unless that was the partition's last.
        const last = records.at(-1)!;
        const more = Items.length > wanted || LastEvaluatedKey !== undefined;
        return {
          records: records.map(toAuditRecord),
          cursor: more ? encodeCursor({ org_id: last.org_id, sk: last.sk, key_id: query.key_id }) : null,
        };
      }
      if (!LastEvaluatedKey) return { records: records.map(toAuditRecord), cursor: null };
      position = LastEvaluatedKey;
    }
    return { records: records.map(toAuditRecord), cursor: encodeCursor({ ...position, key_id: query.key_id }) };
  }
}

/** Items a key-filtered read examines at once, and reads per page at most. */
const KEY_FILTER_BATCH = 500;
const KEY_FILTER_READS = 4;

/** A page position for clients: the query's LastEvaluatedKey, as opaque base64url. */
function encodeCursor(lastEvaluatedKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(lastEvaluatedKey)).toString('base64url');
}

/**
 * The start key a cursor stands for, accepted only when it is a position of this very query (same
 * org, same key filter): a forged or foreign cursor is a 400, never a read elsewhere or a 500.
 */
function decodeCursor(cursor: string, query: AuditQuery): Record<string, unknown> {
  let start: unknown;
  try {
    start = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    start = undefined;
  }
  const s = start as Record<string, unknown> | null | undefined;
  const names = s && typeof s === 'object' && !Array.isArray(s) ? Object.keys(s).sort().join(',') : '';
  const ok =
    s &&
    names === (query.key_id === undefined ? 'org_id,sk' : 'key_id,org_id,sk') &&
    s.org_id === query.org_id &&
    (query.key_id === undefined || s.key_id === query.key_id) &&
    typeof s.sk === 'string';
  if (!ok) throw new InvalidInput('cursor: not a cursor of this audit-log query');
  return s;
}

function toAuditRecord(item: Record<string, unknown>): AuditRecord {
  const { sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...record } = item;
  return { key_id: null, ...record } as unknown as AuditRecord;
}
