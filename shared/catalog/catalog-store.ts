import { GetCommand, PutCommand, UpdateCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { Org, Playable, Role, StartMode, Tier } from './model.js';
import { NotFound } from '../platform/errors.js';
import type { CatalogStore, MembershipStore, PlayableChanges, PlayableStore } from './ports.js';
import { sortableId, unlessRefused, type StoreOptions, batchGetMany, queryItems, whole } from '../platform/dynamo/client.js';

/**
 * The organization catalog (single table): `ORG#<id>/ORG` for an org, `ORG#<id>/MEMBER#<sub>` for a
 * membership, `GAME#<id>/GAME` and `STREAM#<id>/STREAM` for playables (indexed by org in `by_org`,
 * where memberships are indexed by subject: below, {@link memberItem}).
 */
export class DynamoCatalogStore implements CatalogStore, PlayableStore, MembershipStore {
  constructor(private readonly options: StoreOptions) {}

  async getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined> {
    const { Item } = await this.options.client.send(new GetCommand({ TableName: this.options.tableName, Key: playableKey(kind, id) }));
    return Item ? toPlayable(Item) : undefined;
  }

  async getOrg(orgId: number): Promise<Org | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: orgKey(orgId), ConsistentRead: true }),
    );
    return Item ? toOrg(Item) : undefined;
  }

  /** A subject's memberships, by org id: one Query of `by_org` (eventually consistent, as every index). */
  async membershipsOf(subject: string): Promise<{ org_id: number; role: Role }[]> {
    const items = await queryItems(this.options.client, {
      TableName: this.options.tableName,
      IndexName: 'by_org',
      KeyConditionExpression: 'gsi1pk = :subject',
      ExpressionAttributeValues: { ':subject': `SUBJECT#${subject}` },
    });
    return items.map((item) => ({ org_id: item.org_id as number, role: item.role as Role }));
  }

  /** Organizations by id: BatchGetItems of up to 100 keys in parallel, retrying what DynamoDB left unprocessed. */
  async getOrgs(orgIds: readonly number[]): Promise<Org[]> {
    const keys = orgIds.map((id) => ({ pk: `ORG#${id}`, sk: 'ORG' }));
    return whole(await batchGetMany(this.options.client, this.options.tableName, keys, Infinity)).map(toOrg);
  }

  async getRole(orgId: number, subject: string): Promise<Role | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { pk: `ORG#${orgId}`, sk: `MEMBER#${subject}` }, ConsistentRead: true }),
    );
    return Item?.role as Role | undefined;
  }

  /** The games and streams of an organization. */
  async listPlayables(orgId: number, kind?: Playable['kind']): Promise<Playable[]> {
    const items = await queryItems(this.options.client, {
      TableName: this.options.tableName,
      IndexName: 'by_org',
      KeyConditionExpression: kind ? 'gsi1pk = :org AND begins_with(gsi1sk, :kind)' : 'gsi1pk = :org',
      ExpressionAttributeValues: { ':org': `ORG#${orgId}`, ...(kind ? { ':kind': `${kind.toUpperCase()}#` } : {}) },
    });
    return items.map(toPlayable);
  }

  /** Create or replace an organization. */
  async putOrg(org: Org): Promise<void> {
    await this.options.client.send(
      new PutCommand({ TableName: this.options.tableName, Item: { pk: `ORG#${org.org_id}`, sk: 'ORG', ...org } }),
    );
  }

  /** Create or replace a membership (with its index keys: list-orgs finds it by subject). */
  async putMember(orgId: number, subject: string, role: Role): Promise<void> {
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: memberItem(orgId, subject, role),
      }),
    );
  }

  /**
   * Make sure a membership exists in the current item shape, keeping what is stored: a missing one is
   * created with `role`; one that exists keeps its role and gains the index keys it may lack (written
   * before list-orgs). One update, so a data folder of an earlier version is upgraded in place.
   */
  async ensureMember(orgId: number, subject: string, role: Role): Promise<void> {
    const { pk, sk, gsi1pk, gsi1sk } = memberItem(orgId, subject, role);
    await this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: { pk, sk },
        UpdateExpression: 'SET org_id = :org, subject = :subject, #role = if_not_exists(#role, :role), gsi1pk = :gpk, gsi1sk = :gsk',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':org': orgId, ':subject': subject, ':role': role, ':gpk': gsi1pk, ':gsk': gsi1sk },
      }),
    );
  }

  /** Create or replace a game or stream. */
  async putPlayable(playable: Playable): Promise<void> {
    const kind = playable.kind.toUpperCase();
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          ...playableKey(playable.kind, playable.id),
          ...playable,
          gsi1pk: `ORG#${playable.org_id}`,
          gsi1sk: `${kind}#${sortableId(playable.id)}`,
        },
      }),
    );
  }

  /** Turn "Require API Session Token" on or off; returns the updated playable, or undefined if unknown. */
  async setRequireSessionToken(kind: Playable['kind'], id: number, required: boolean): Promise<Playable | undefined> {
    return this.updatePlayable(kind, id, { require_session_token: required });
  }

  /** Change a playable's mutable fields (`name`, `require_session_token`, `start`); returns it as it is now. */
  async updatePlayable(kind: Playable['kind'], id: number, changes: PlayableChanges): Promise<Playable | undefined> {
    if (Object.values(changes).every((v) => v === undefined)) return this.getPlayable(kind, id);
    return this.setFields(kind, id, changes, undefined, 'ALL_NEW');
  }

  /**
   * Change a playable of `orgId` only (the MCP tools: another org's game reads as absent).
   * @returns the playable as it was before the change, or undefined when absent from that org
   */
  async updateInOrg(kind: Playable['kind'], id: number, orgId: number, changes: PlayableChanges): Promise<Playable | undefined> {
    // The previous version: the caller knows the new one, and needs the old one to undo.
    return this.setFields(kind, id, changes, orgId, 'ALL_OLD');
  }

  /** One conditional update of a playable's fields (a null removes its attribute); undefined when it is absent (from `orgId`). */
  private async setFields(
    kind: Playable['kind'],
    id: number,
    changes: PlayableChanges,
    orgId: number | undefined,
    returnValues: 'ALL_NEW' | 'ALL_OLD',
  ): Promise<Playable | undefined> {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
    const set = entries.flatMap(([, v], i) => (v === null ? [] : [`#f${i} = :v${i}`]));
    const remove = entries.flatMap(([, v], i) => (v === null ? [`#f${i}`] : []));
    const answer = await unlessRefused(
      this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: playableKey(kind, id),
          UpdateExpression: [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : '']
            .join(' ')
            .trim(),
          ConditionExpression: orgId === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND org_id = :org',
          ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
          // DynamoDB refuses an empty map: a REMOVE alone, without the org's condition, has no values.
          ExpressionAttributeValues: nonEmpty({
            ...(orgId === undefined ? {} : { ':org': orgId }),
            ...Object.fromEntries(entries.flatMap(([, v], i) => (v === null ? [] : [[`:v${i}`, v]]))),
          }),
          ReturnValues: returnValues,
        }),
      ),
      () => undefined,
    );
    return answer && toPlayable(answer.Attributes!);
  }

  /**
   * Change an org's tier (one conditional write) and bump its `tier_version`. Keys carry a copy of
   * the tier and of this version (so authentication stays one read); `OrgTiers.change`
   * (shared/keys/org-tiers.ts) then hands both to every key of the org.
   * @returns the tier as written with its new version
   * @throws NotFound when there is no such org
   */
  async setOrgTier(orgId: number, tier: Tier): Promise<{ tier: Tier; version: number }> {
    const { Attributes } = await unlessRefused(
      this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: orgKey(orgId),
          UpdateExpression: 'SET tier = :tier ADD tier_version :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':tier': tier, ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      ),
      (error) => {
        throw new NotFound(`Organization ${orgId} not found`, { cause: error });
      },
    );
    return { tier: Attributes!.tier as Tier, version: Attributes!.tier_version as number };
  }
}

/** The table key of an organization's item (its tier, with `tier_version`, among its settings). */
export function orgKey(orgId: number): { pk: string; sk: string } {
  return { pk: `ORG#${orgId}`, sk: 'ORG' };
}

function playableKey(kind: Playable['kind'], id: number): { pk: string; sk: string } {
  const upper = kind.toUpperCase();
  return { pk: `${upper}#${id}`, sk: upper };
}

/** `values`, or undefined when it has none. */
function nonEmpty(values: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(values).length === 0 ? undefined : values;
}

function toPlayable(item: Record<string, unknown>): Playable {
  return {
    kind: item.kind as Playable['kind'],
    id: item.id as number,
    org_id: item.org_id as number,
    org_slug: item.org_slug as string,
    name: item.name as string,
    require_session_token: item.require_session_token as boolean,
    content_url: item.content_url as string,
    ...(item.start === undefined ? {} : { start: item.start as StartMode }),
  };
}

function toOrg(item: Record<string, unknown>): Org {
  return {
    org_id: item.org_id as number,
    slug: item.slug as string,
    name: item.name as string,
    tier: item.tier as Tier,
    allowed_origins: (item.allowed_origins as string[] | undefined) ?? [],
    tier_version: (item.tier_version as number | undefined) ?? 0,
  };
}

// --- Membership items

/*
 * Membership items of the catalog (`ORG#<id>/MEMBER#<sub>`) and their keys in its `by_org` index:
 * `SUBJECT#<sub>` / `ORG#<zero-padded id>`, so that one Query lists a subject's organizations by id
 * (list-orgs). The index's playable entries sit under `ORG#<id>` partitions, so neither kind of
 * entry is ever read by the other's queries.
 */

/** The index keys of a membership. */
function memberIndexKeys(orgId: number, subject: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `SUBJECT#${subject}`, gsi1sk: `ORG#${sortableId(orgId)}` };
}

/** A whole membership item. */
function memberItem(orgId: number, subject: string, role: Role): Record<string, unknown> {
  return { pk: `ORG#${orgId}`, sk: `MEMBER#${subject}`, org_id: orgId, subject, role, ...memberIndexKeys(orgId, subject) };
}

/**
 * Give every membership its index keys (those written before list-orgs have none, so the org picker
 * would not show them). One Scan of the catalog, one conditional update per membership lacking them
 * (never recreating one deleted meanwhile); safe to run again. @returns how many memberships were seen
 */
export async function backfillMemberKeys(options: StoreOptions): Promise<number> {
  let seen = 0;
  const pages = paginateScan(
    { client: options.client },
    {
      TableName: options.tableName,
      FilterExpression: 'begins_with(sk, :member)',
      ExpressionAttributeValues: { ':member': 'MEMBER#' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      seen++;
      if (item.gsi1pk !== undefined) continue;
      const keys = memberIndexKeys(item.org_id as number, item.subject as string);
      await unlessRefused(
        options.client.send(
          new UpdateCommand({
            TableName: options.tableName,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':pk': keys.gsi1pk, ':sk': keys.gsi1sk },
          }),
        ),
        // Deleted since the scan: nothing to give keys to.
        () => undefined,
      );
    }
  }
  return seen;
}
