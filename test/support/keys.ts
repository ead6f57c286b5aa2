/**
 * Test helpers for API keys with custom settings (limits, scopes, expiry, tier), created straight
 * through the key store until the admin API exists, and for reading what the service stored
 * (audit records, rate-limit counters, tokens) through the document client. Ids start at 1000 to
 * stay clear of the seed.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { generateRawKey, newKeyRecord, type KeySettings } from '../../shared/keys/api-keys.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import type { AuditRecord } from '../../shared/audit/model.js';
import type { Tier } from '../../shared/catalog/model.js';
import { counterShards, counterSlot } from '../../shared/keys/rate-limit.js';
import { AUDIT_SHARDS } from '../../shared/audit/audit-store.js';
import type { Stack } from './local-stack.js';

/** A key made for a test: the raw key to present and the record stored for it. */
export interface TestKey {
  readonly raw: string;
  readonly record: ApiKeyRecord;
}

/** Limits high enough that a whole test file never meets them (the demo key allows 60 a minute). */
export const UNLIMITED = { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000_000 } as const;

let nextKeyId = 1000;

/** Create a key through the store (org 1, business tier, unscoped, default limits unless given). */
export async function createTestKey(
  stack: Stack,
  settings: Partial<KeySettings> = {},
  org: { org_id: number; tier: Tier } = { org_id: 1, tier: 'business' },
): Promise<TestKey> {
  const raw = generateRawKey();
  stack.secrets.noteRawKey(raw);
  const record = newKeyRecord(raw, nextKeyId++, org, { name: 'test key', ...settings }, stack.clock.now());
  await stack.services.stores.keys.create(record);
  return { raw, record };
}

/** Overwrite a key's stored record (revoke, expire, change limits). */
export async function putKeyRecord(stack: Stack, record: ApiKeyRecord): Promise<void> {
  await stack.services.client.send(new PutCommand({ TableName: stack.tableNames.keys, Item: record }));
}

/** Remove a key's record, as the admin API's delete will. */
export async function deleteKeyRecord(stack: Stack, record: ApiKeyRecord): Promise<void> {
  await stack.services.client.send(new DeleteCommand({ TableName: stack.tableNames.keys, Key: { key_hash: record.key_hash } }));
}

/** Every audit record written for a key, in any org (a scan: test tables are small). */
export async function auditOfKey(stack: Stack, keyId: number): Promise<AuditRecord[]> {
  const items: AuditRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.services.client.send(
      new ScanCommand({
        TableName: stack.tableNames.audit,
        FilterExpression: 'key_id = :k',
        ExpressionAttributeValues: { ':k': keyId },
        ExclusiveStartKey,
      }),
    );
    items.push(...((page.Items ?? []) as AuditRecord[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  // Oldest first (by the sort key, time then request id), as a query would read them.
  return items.sort((a, b) => `${a.at}#${a.request_id}`.localeCompare(`${b.at}#${b.request_id}`));
}

/**
 * The audit records of an organization's requests answered with this `x-request-id` (a caller may
 * give two requests the same), oldest first.
 */
export async function auditOfRequest(stack: Stack, orgId: number, requestId: string | null): Promise<AuditRecord[]> {
  // A record lives on the shard its request's unique (gateway) id picks: every shard is read.
  const shards = await Promise.all(
    Array.from({ length: AUDIT_SHARDS }, (_, shard) =>
      stack.services.client.send(
        new QueryCommand({
          TableName: stack.tableNames.audit,
          KeyConditionExpression: 'pk = :p',
          FilterExpression: 'request_id = :r',
          ExpressionAttributeValues: { ':p': `${orgId}#${shard}`, ':r': requestId },
        }),
      ),
    ),
  );
  return shards.flatMap((s) => (s.Items ?? []) as AuditRecord[]).sort((a, b) => a.at.localeCompare(b.at));
}

/**
 * The current count of a key's minute and day windows at the stack's time, summed over the key's
 * counter shards (undefined: no counter item at all).
 */
export async function windowCounts(stack: Stack, key: ApiKeyRecord): Promise<{ minute?: number; day?: number }> {
  const now = stack.clock.now();
  const shards = counterShards(key, stack.services.env.DYNAMODB_PARTITION_WRITE_UNITS);
  const items = await Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      const slot = counterSlot(key, now, shard, shards);
      const { Item } = await stack.services.client.send(
        new GetCommand({ TableName: stack.tableNames.counters, Key: { pk: slot.counterKey }, ConsistentRead: true }),
      );
      return Item && { minute: (Item[slot.minuteField] as number | undefined) ?? 0, day: Item.day as number };
    }),
  );
  const found = items.filter((i) => i !== undefined);
  if (found.length === 0) return {};
  return { minute: found.reduce((n, i) => n + i.minute, 0), day: found.reduce((n, i) => n + i.day, 0) };
}

/** Every stored token minted with a key. */
export async function tokensOfKey(stack: Stack, keyId: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.services.client.send(
      new ScanCommand({
        TableName: stack.tableNames.tokens,
        FilterExpression: 'key_id = :k',
        ExpressionAttributeValues: { ':k': keyId },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * Keep the next `needMs` of the stack's time inside one minute window: when fewer remain, move the
 * clock to the next minute's start. A check that recomputes the window afterwards
 * ({@link windowCounts}) then finds the one the service counted in, however slow the run (a test
 * that failed across a minute boundary on DynamoDB Local).
 */
export function roomInMinute(stack: Stack, needMs = 15_000): void {
  if (60_000 - (stack.clock.now() % 60_000) < needMs) startOfNextMinute(stack);
}

/**
 * Move the stack's clock forward to `marginMs` after the next UTC minute boundary, so that a test
 * has almost a whole rate-limit minute window before it (the clock never goes back).
 */
export function startOfNextMinute(stack: Stack, marginMs = 200): void {
  const now = stack.clock.now();
  stack.clock.advance(Math.ceil(now / 60_000) * 60_000 + marginMs - now);
}
