/**
 * Id items: one small item per API key in the keys table, under `key_hash` = `id#<key id>`, that
 * names the key's table key (its hash). Admin operations address a key by (org, id); the `by_org`
 * index serves that only eventually (a key just created can be missing there for a moment on AWS,
 * neither emulator shows it), while a GetItem of the id item is strongly consistent, so a PATCH,
 * DELETE or rotation right after a create finds the key. An id item carries neither `org_id` nor
 * `id`: it stays out of `by_org` (sparse index) and out of the tier sweep's `org_id` filter.
 *
 * Written beside the key: in one transaction with it when an admin creates a key
 * (`DynamoKeyStore.createInOrg`), else side by side, so every failure mode is named where the
 * writes are (`DynamoKeyStore.create`, `remove`). A stale id item (its key deleted meanwhile) is
 * harmless: every admin write is conditional on the key item itself.
 *
 * delete-key leaves the id item behind as a tombstone (`deleted_by`, `deleted_at`), written in one
 * transaction with the key item's delete (`DynamoKeyStore.remove`): the webhook worker reads from it
 * who deleted the key (`key.deleted`'s actor; the key item's stream record has only the key). Every
 * lookup by id reads a tombstone as absent ({@link locateById}).
 */
import { DeleteCommand, GetCommand, paginateScan, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from './model.js';
import type { KeyDeletion, KeyLocation } from './ports.js';
import { idempotent, isConditionalFailure, type StoreOptions } from '../platform/dynamo/client.js';

/** The table key of a key's id item (a hash is hex, so no key item can have it). */
export const idItemKey = (id: number): string => `id#${id}`;

/** What an id item holds. */
interface KeyIdItem {
  readonly key_hash: string;
  /** The key's own table key. */
  readonly target_hash: string;
  readonly target_org: number;
  /** The key's prefix, which the audit record of an admin call names. */
  readonly key_prefix: string;
  /** A tombstone's: the key is gone, deleted by this actor at this time. */
  readonly deleted_by?: string;
  readonly deleted_at?: string;
}

/** The id item of `key`. */
function idItemOf(key: KeyLocation): KeyIdItem {
  return { key_hash: idItemKey(key.id), target_hash: key.key_hash, target_org: key.org_id, key_prefix: key.key_prefix };
}

/** The put of `key`'s id item: never pointing an id at another key; a repeat of the same put succeeds. */
export function idItemPut(
  options: StoreOptions,
  key: KeyLocation,
): { TableName: string; Item: KeyIdItem; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } {
  return {
    TableName: options.tableName,
    Item: idItemOf(key),
    ConditionExpression: 'attribute_not_exists(key_hash) OR target_hash = :hash',
    ExpressionAttributeValues: { ':hash': key.key_hash },
  };
}

/** Store the id item of `key` ({@link idItemPut}). */
export async function putIdItem(options: StoreOptions, key: KeyLocation): Promise<void> {
  await options.client.send(new PutCommand(idempotent(idItemPut(options, key))));
}

/** Where the key `id` of `orgId` is, by a strongly consistent read; undefined when absent or of another org. */
export async function locateById(options: StoreOptions, orgId: number, id: number): Promise<KeyLocation | undefined> {
  const { Item } = await options.client.send(
    new GetCommand({ TableName: options.tableName, Key: { key_hash: idItemKey(id) }, ConsistentRead: true }),
  );
  const item = Item as KeyIdItem | undefined;
  // A tombstone is a deleted key's: absent, as the key is.
  if (!item || item.target_org !== orgId || item.deleted_by !== undefined) return undefined;
  return { key_hash: item.target_hash, org_id: orgId, id, key_prefix: item.key_prefix };
}

/**
 * The put that turns `key`'s id item into its tombstone (in delete-key's transaction): only over
 * that key's own id item, or where none is (a key stored before id items existed).
 */
export function tombstonePut(
  options: StoreOptions,
  key: KeyLocation,
  deletion: KeyDeletion,
): { TableName: string; Item: KeyIdItem; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } {
  return { ...idItemPut(options, key), Item: { ...idItemOf(key), deleted_by: deletion.deleted_by, deleted_at: deletion.deleted_at } };
}

/** Who deleted the key `id` and when (its tombstone, strongly consistent); undefined while it is not deleted so, or of another org. */
export async function deletionOf(options: StoreOptions, orgId: number, id: number): Promise<KeyDeletion | undefined> {
  const { Item } = await options.client.send(
    new GetCommand({ TableName: options.tableName, Key: { key_hash: idItemKey(id) }, ConsistentRead: true }),
  );
  const item = Item as KeyIdItem | undefined;
  if (!item || item.target_org !== orgId || item.deleted_by === undefined || item.deleted_at === undefined) return undefined;
  return { deleted_by: item.deleted_by, deleted_at: item.deleted_at };
}

/** Remove the id item of `key` (only while it points at that key; already gone is fine). */
export async function deleteIdItem(options: StoreOptions, key: Pick<ApiKeyRecord, 'id' | 'key_hash'>): Promise<void> {
  try {
    await options.client.send(
      // A repeat finds it gone, which the condition allows: harmless to repeat.
      new DeleteCommand(
        idempotent({
          TableName: options.tableName,
          Key: { key_hash: idItemKey(key.id) },
          ConditionExpression: 'attribute_not_exists(key_hash) OR target_hash = :hash',
          ExpressionAttributeValues: { ':hash': key.key_hash },
        }),
      ),
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}

/**
 * Give every key that has no id item one (keys stored before id items existed, or a create that
 * died between its two puts): a strongly consistent Scan of the keys table, then a put per key,
 * which changes nothing where the id item is already there. Safe to run at any time and again: a
 * key deleted while it runs may be left an id item, which finds no key (404).
 * @returns how many keys were seen
 */
export async function backfillIdItems(options: StoreOptions): Promise<number> {
  let keys = 0;
  const pages = paginateScan(
    { client: options.client },
    {
      TableName: options.tableName,
      ConsistentRead: true,
      // Key items only: id items carry neither attribute.
      FilterExpression: 'attribute_exists(org_id) AND attribute_exists(id)',
      ProjectionExpression: 'key_hash, org_id, id, key_prefix',
    },
  );
  for await (const page of pages) {
    const found = (page.Items ?? []) as KeyLocation[];
    await Promise.all(found.map((key) => putIdItem(options, key)));
    keys += found.length;
  }
  return keys;
}
