import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditRecord } from '../domain/model.js';
import type { AuditStore } from '../domain/ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import type { StoreOptions } from './dynamo-client.js';

/** Sort key of an audit record: time first (newest-first queries), request id for uniqueness. */
export function auditSortKey(record: Pick<AuditRecord, 'at' | 'request_id'>): string {
  return `${record.at}#${record.request_id}`;
}

/** The audit log in DynamoDB, partitioned by organization. */
export class DynamoAuditStore implements AuditStore {
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
}
