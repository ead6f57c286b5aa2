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
    // `key_id` is an index key: it must be absent, not null, on records without a key.
    const { key_id, ...rest } = record;
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { ...rest, ...(key_id === null ? {} : { key_id }), sk: auditSortKey(record), [TTL_ATTRIBUTE]: ttl },
      }),
    );
  }

  async page(query: AuditQuery): Promise<AuditPage> {
    const byKey = query.key_id !== undefined;
    const { Items, LastEvaluatedKey } = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tableName,
        ...(byKey
          ? {
              IndexName: 'by_key',
              KeyConditionExpression: 'key_id = :key',
              // Key ids are unique across orgs; the filter keeps the org boundary even so.
              FilterExpression: 'org_id = :org',
              ExpressionAttributeValues: { ':key': query.key_id, ':org': query.org_id },
            }
          : { KeyConditionExpression: 'org_id = :org', ExpressionAttributeValues: { ':org': query.org_id } }),
        ScanIndexForward: false,
        Limit: query.limit,
        ExclusiveStartKey: query.cursor === undefined ? undefined : decodeCursor(query.cursor, query),
      }),
    );
    return { records: (Items ?? []).map(toAuditRecord), cursor: LastEvaluatedKey ? encodeCursor(LastEvaluatedKey) : null };
  }
}

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
