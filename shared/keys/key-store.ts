import { DeleteCommand, paginateScan, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { asFollowUp } from '../platform/time.js';
import { Conflict, Forbidden, NotFound, Overloaded, TierRequired } from '../platform/errors.js';
import { TierChanged } from './org-tiers.js';
import { tierAllowsApi, type Tier } from '../catalog/index.js';
import { type ApiKeyRecord } from './model.js';
import type {
  KeyAddress,
  KeyAdminStore,
  KeyChanges,
  KeyDeletion,
  KeyLocation,
  KeyStore,
  KeyTierStore,
  KeyUpdateOptions,
  KeyUpdate,
} from './ports.js';
import { DynamoKeyAuthStore } from './key-auth-store.js';
import { orgKey } from '../catalog/index.js';
import { deleteIdItem, deletionOf, idItemPut, locateById, putIdItem, tombstonePut } from './key-id-items.js';
import { retiredMessage, updateConditions } from './key-update-conditions.js';
import { idempotent, isConditionalFailure, oldItemOf, wireAttribute, type StoreOptions, queryItems } from '../platform/dynamo/client.js';

/** The keys table's adapter options, plus the catalog's table, where a new key's org is checked. */
export interface KeyStoreOptions extends StoreOptions {
  /** The catalog table (its org items); only {@link DynamoKeyStore.createInOrg} needs it. */
  readonly catalogTableName?: string;
}

/** Where the org's ConditionCheck sits in {@link DynamoKeyStore.createInOrg}'s transaction. */
const ORG_CHECK = 2;
/** Where the key item's delete sits in {@link DynamoKeyStore.remove}'s transaction. */
const KEY_DELETE = 1;

/**
 * API keys in DynamoDB, keyed by the SHA-256 of the raw key: authentication ({@link DynamoKeyAuthStore})
 * plus key management and tier changes.
 */
export class DynamoKeyStore extends DynamoKeyAuthStore implements KeyStore, KeyAdminStore, KeyTierStore {
  constructor(protected override readonly options: KeyStoreOptions) {
    super(options);
  }

  /**
   * Store a new key with its id item, two conditional puts side by side, with no check of its org
   * (the seed and tests; an admin's new key goes through {@link createInOrg}). The
   * caller answers "created" (the only place the raw key is ever shown) only when both landed; when
   * one fails the other is taken back. What a failure can leave: an id item alone is invisible (out
   * of every index, and every write through it is conditional on a key item, which is missing: 404);
   * a key alone (the take-back failed too, or the process died between) was never answered, so
   * nobody holds its raw key: it shows in the list, and `infra/backfill-key-ids.ts` gives it an id
   * item so that it can be deleted (docs/deploy.md, "Upgrading").
   */
  async create(key: ApiKeyRecord): Promise<void> {
    // The id item first: a fault injected into "the next keys PutItem" hits it (keys-data-access).
    const [idItem, keyItem] = await Promise.allSettled([putIdItem(this.options, key), this.putKey(key)]);
    if (idItem.status === 'fulfilled' && keyItem.status === 'fulfilled') return;
    // A take-back that fails too leaves one of the two states above; the caller hears the first failure.
    // Take-backs of a write already made: they get their attempt even at the deadline.
    if (keyItem.status === 'rejected') {
      if (idItem.status === 'fulfilled') await asFollowUp(() => deleteIdItem(this.options, key)).catch(() => undefined);
      throw keyItem.reason;
    }
    // The key item without its id item: take it back, as if the create never happened.
    await asFollowUp(() => this.deleteKeyItem(key)).catch(() => undefined);
    throw (idItem as PromiseRejectedResult).reason;
  }

  /**
   * Store an admin's new key, with its id item, while its org's tier is still the one the key copied
   * (`org_tier_version`): one transaction of the two puts and a ConditionCheck on the org's item,
   * so a tier change that lands between the call's authorization and this write (and whose sweep of
   * the keys could not find this key yet) refuses it instead of leaving it with the old tier
   * (shared/keys/org-tiers.ts). All or nothing: no take-back to make.
   * @throws TierRequired (the org dropped below Business), TierChanged (to another tier that allows
   *   keys: the caller may store the key again with it), Forbidden (the org is gone)
   */
  async createInOrg(key: ApiKeyRecord): Promise<void> {
    const { catalogTableName } = this.options;
    if (!catalogTableName) throw new Error('DynamoKeyStore.createInOrg needs catalogTableName');
    const version = key.org_tier_version ?? 0;
    try {
      await this.options.client.send(
        // Each condition accepts its own earlier application, and the token (one per call, kept by
        // every retry of it) makes DynamoDB answer a repeat as the first: harmless to repeat.
        new TransactWriteCommand(
          idempotent({
            ClientRequestToken: randomUUID(),
            TransactItems: [
              { Put: idItemPut(this.options, key) },
              { Put: this.keyPut(key) },
              {
                ConditionCheck: {
                  TableName: catalogTableName,
                  Key: orgKey(key.org_id),
                  // An org never given a tier change may have no tier_version (read as 0).
                  ConditionExpression: `attribute_exists(pk) AND (tier_version = :v${version === 0 ? ' OR attribute_not_exists(tier_version)' : ''})`,
                  ExpressionAttributeValues: { ':v': version },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
            ],
          }),
        ),
      );
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string; Item?: Record<string, unknown> }[] }).CancellationReasons;
      const org = reasons?.[ORG_CHECK];
      if (org?.Code === 'ConditionalCheckFailed') throw orgRefusal(key, oldItemOf(org), error);
      // A transaction cancelled by a concurrent transaction on one of its items, or by throttling:
      // nothing was written, a retry may pass (503 with Retry-After, not a 500).
      if (reasons?.some((r) => r.Code !== undefined && r.Code !== 'None' && r.Code !== 'ConditionalCheckFailed')) {
        throw new Overloaded({ cause: error });
      }
      throw error;
    }
  }

  private async putKey(key: ApiKeyRecord): Promise<void> {
    await this.options.client.send(new PutCommand(idempotent(this.keyPut(key))));
  }

  /** The put of a new key item. */
  private keyPut(key: ApiKeyRecord): {
    TableName: string;
    Item: ApiKeyRecord;
    ConditionExpression: string;
    ExpressionAttributeValues: Record<string, unknown>;
  } {
    return {
      TableName: this.options.tableName,
      Item: key,
      // The hash is of a fresh 160-bit random key: an item with it and this id can only be this
      // very put, applied once already with its answer lost; the retry then succeeds.
      ConditionExpression: 'attribute_not_exists(key_hash) OR (id = :id AND org_id = :org)',
      ExpressionAttributeValues: { ':id': key.id, ':org': key.org_id },
    };
  }

  async listByOrg(orgId: number): Promise<ApiKeyRecord[]> {
    const items = await queryItems(this.options.client, {
      TableName: this.options.tableName,
      IndexName: 'by_org',
      KeyConditionExpression: 'org_id = :org',
      ExpressionAttributeValues: { ':org': orgId },
    });
    return items as unknown as ApiKeyRecord[];
  }

  async peek(orgId: number, id: number): Promise<ApiKeyRecord | undefined> {
    const { Items = [] } = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tableName,
        IndexName: 'by_org',
        KeyConditionExpression: 'org_id = :org AND id = :id',
        ExpressionAttributeValues: { ':org': orgId, ':id': id },
      }),
    );
    return Items[0] as ApiKeyRecord | undefined;
  }

  async findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined> {
    const location = await this.locate(orgId, id);
    if (!location) return undefined;
    const key = await this.getByHash(location.key_hash);
    // A stale id item (its key deleted since) finds nothing, or (never: hashes are fresh) another key.
    return key && key.org_id === orgId && key.id === id ? key : undefined;
  }

  /** By the key's id item, not through `by_org`: that index is eventually consistent (key-id-items.ts). */
  locate(orgId: number, id: number): Promise<KeyLocation | undefined> {
    return locateById(this.options, orgId, id);
  }

  async update(key: KeyAddress, changes: KeyChanges, updatedAtIso: string, options: KeyUpdateOptions = {}): Promise<KeyUpdate> {
    const limitsChange = changes.rate_limit_per_minute !== undefined || changes.rate_limit_per_day !== undefined;
    const entries = [
      ...Object.entries(changes).filter(([, v]) => v !== undefined),
      ['updated_at', updatedAtIso] as const,
      // The actor of the key event this change makes (shared/webhooks/stream-events.ts).
      ...(options.by === undefined ? [] : [['updated_by', options.by] as const]),
      // A new counter layout for the rest of the day (CounterLayouts in shared/keys/rate-limit.ts).
      ...(limitsChange ? [['limits_changed_at', updatedAtIso] as const] : []),
    ];
    const { conditions, values, guard } = updateConditions(key, changes, options);
    // The version only grows; should a retry count a change twice, a version is skipped, which is harmless.
    const version = limitsChange ? ', limits_version = if_not_exists(limits_version, :zero) + :one' : '';
    if (limitsChange) Object.assign(values, { ':zero': 0, ':one': 1 });
    try {
      const { Attributes } = await this.options.client.send(
        // Sets fixed values under a condition a repetition still meets: harmless to repeat.
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { key_hash: key.key_hash },
            UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}${version}`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
            ExpressionAttributeValues: { ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])), ...values },
            // The key as it was (for the audit record); as it is now follows from it and the SET above.
            ReturnValues: 'ALL_OLD',
            // A refusal carries the key as it is, which tells which condition failed without a read.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      const before = Attributes as ApiKeyRecord;
      return { before, after: { ...before, ...Object.fromEntries(entries) } as ApiKeyRecord };
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      throw this.updateRefusal(error, key, guard, options);
    }
  }

  /** Why a conditional update was refused, as the domain's error: which condition failed. */
  private updateRefusal(error: unknown, key: KeyAddress, guard: string | null | undefined, options: KeyUpdateOptions): Error {
    if (options.unrotated) return new Conflict(`API key ${key.id} was deleted, revoked or rotated meanwhile`, undefined, { cause: error });
    // The key as the refusal returned it; a refusal without it is a key that is gone (DynamoDB
    // returns the item whenever there is one).
    const old = guard === undefined ? undefined : oldItemOf(error);
    const now = old && { org_id: wireAttribute(old, 'org_id'), id: wireAttribute(old, 'id'), rotated_to: wireAttribute(old, 'rotated_to') };
    if (now && now.org_id === key.org_id && now.id === key.id && now.rotated_to != null) {
      return new Conflict(retiredMessage(key.id, Number(now.rotated_to)), undefined, { cause: error });
    }
    return new NotFound(`API key ${key.id} not found in organization ${key.org_id}`, { cause: error });
  }

  async unretire(
    key: KeyAddress,
    restore: Pick<ApiKeyRecord, 'is_active' | 'expires_at'>,
    rotatedTo: number,
    retiredAtIso: string,
  ): Promise<boolean> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { key_hash: key.key_hash },
          UpdateExpression: 'SET is_active = :active, expires_at = :expires, rotated_to = :null',
          ConditionExpression: 'org_id = :org AND id = :id AND rotated_to = :to AND updated_at = :at',
          ExpressionAttributeValues: {
            ':active': restore.is_active,
            ':expires': restore.expires_at,
            ':null': null,
            ':org': key.org_id,
            ':id': key.id,
            ':to': rotatedTo,
            ':at': retiredAtIso,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }

  /** Who deleted the key `id` of `orgId` and when (its id item's tombstone); undefined while not deleted by delete-key. */
  deletionOf(orgId: number, id: number): Promise<KeyDeletion | undefined> {
    return deletionOf(this.options, orgId, id);
  }

  /**
   * Delete the key. With `deletion` (delete-key): one transaction of the key item's delete (under the
   * same condition as {@link deleteKeyItem}) and its id item's turn into a tombstone: all or nothing.
   * Without it (a take-back), see {@link removeSideBySide}.
   */
  async remove(key: KeyLocation, deletion?: KeyDeletion): Promise<void> {
    if (!deletion) return this.removeSideBySide(key);
    try {
      await this.options.client.send(
        // The key's delete is conditional on that key of that org; the tombstone's put on that key's
        // id item: a repeat whose first run applied finds the key gone (404), as a second delete would.
        new TransactWriteCommand({
          // The tombstone first: dynalite's stand-in applies the items in order, and a stream reader of
          // the key's removal must find who removed it (DynamoDB applies both at once).
          TransactItems: [
            { Put: tombstonePut(this.options, key, deletion) },
            {
              Delete: {
                TableName: this.options.tableName,
                Key: { key_hash: key.key_hash },
                ConditionExpression: 'org_id = :org AND id = :id',
                ExpressionAttributeValues: { ':org': key.org_id, ':id': key.id },
              },
            },
          ],
        }),
      );
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (reasons?.[KEY_DELETE]?.Code === 'ConditionalCheckFailed') {
        throw new NotFound(`API key ${key.id} not found in organization ${key.org_id}`, { cause: error });
      }
      // Cancelled by a concurrent transaction or throttling: nothing was written, a retry may pass.
      if (reasons?.some((r) => r.Code !== undefined && r.Code !== 'None')) throw new Overloaded({ cause: error });
      throw error;
    }
  }

  /**
   * Delete the key and its id item side by side. When the key's delete fails for any reason but its
   * absence, the id item is put back, so the key stays reachable by id (an admin can retry); a key
   * already gone leaves no id item. An id item left behind (its delete failed, or the key's delete
   * timed out having been applied) is harmless: it finds no key (404). Should the put-back fail too,
   * the key stays without its id item (404 by id) until `infra/backfill-key-ids.ts` runs.
   */
  private async removeSideBySide(key: KeyLocation): Promise<void> {
    const [keyItem, idItem] = await Promise.allSettled([this.deleteKeyItem(key), deleteIdItem(this.options, key)]);
    if (keyItem.status === 'fulfilled') return;
    if (idItem.status === 'fulfilled' && !(keyItem.reason instanceof NotFound)) {
      await asFollowUp(() => putIdItem(this.options, key)).catch(() => undefined);
    }
    throw keyItem.reason;
  }

  /** Delete the key item while it is still that key of that org. @throws NotFound when it is gone */
  private async deleteKeyItem(key: KeyAddress): Promise<void> {
    try {
      await this.options.client.send(
        new DeleteCommand({
          TableName: this.options.tableName,
          Key: { key_hash: key.key_hash },
          ConditionExpression: 'org_id = :org AND id = :id',
          ExpressionAttributeValues: { ':org': key.org_id, ':id': key.id },
        }),
      );
    } catch (error) {
      if (isConditionalFailure(error)) throw new NotFound(`API key ${key.id} not found in organization ${key.org_id}`, { cause: error });
      throw error;
    }
  }

  /**
   * Hand an org's tier (at `version`) to every one of its keys. The keys are found by a strongly
   * consistent Scan of the table, not through `by_org`: that index is eventually consistent, and a
   * key whose index entry lags would keep its old tier. Tier changes are rare (billing events), so
   * reading the whole keys table then is affordable; see SECURITY.md (tier enforcement).
   * @returns how many keys now carry the tier
   */
  async setOrgTier(orgId: number, tier: Tier, version: number): Promise<number> {
    const hashes: string[] = [];
    const pages = paginateScan(
      { client: this.options.client },
      {
        TableName: this.options.tableName,
        ConsistentRead: true,
        FilterExpression: 'org_id = :org',
        ProjectionExpression: 'key_hash',
        ExpressionAttributeValues: { ':org': orgId },
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) hashes.push(item.key_hash as string);
    const applied = await Promise.all(hashes.map((keyHash) => this.settleTier({ key_hash: keyHash, org_id: orgId }, tier, version)));
    return applied.filter(Boolean).length;
  }

  /**
   * Give one key the org's tier at `version`, unless it already carries that version or a later one
   * (a later change got there first) or it is gone (never recreated).
   * @returns whether the key now carries it
   */
  async settleTier(key: Pick<KeyAddress, 'key_hash' | 'org_id'>, tier: Tier, version: number): Promise<boolean> {
    try {
      await this.options.client.send(
        // Sets fixed values under a condition a repetition meets or harmlessly fails: safe to repeat.
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { key_hash: key.key_hash },
            UpdateExpression: 'SET org_tier = :tier, org_tier_version = :v',
            ConditionExpression: 'org_id = :org AND (attribute_not_exists(org_tier_version) OR org_tier_version <= :v)',
            ExpressionAttributeValues: { ':tier': tier, ':v': version, ':org': key.org_id },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }
}

/**
 * Why the org's check refused a new key, as the domain's error, from the org as the refusal returned
 * it; a refusal without it is an org that is gone (DynamoDB returns the item whenever there is one).
 */
function orgRefusal(key: ApiKeyRecord, org: Record<string, unknown> | undefined, cause: unknown): Error {
  if (!org) return new Forbidden(`You are not a member of organization ${key.org_id}`, { cause });
  const tier = wireAttribute(org, 'tier') as Tier;
  const version = Number(wireAttribute(org, 'tier_version') ?? 0);
  if (!tierAllowsApi(tier)) return new TierRequired({ cause });
  return new TierChanged(tier, version, { cause });
}
