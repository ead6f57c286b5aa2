import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFound, PlayerMismatch, TokenGone } from '../platform/errors.js';
import { type TokenRecord } from './model.js';
import type { TokenStore } from './ports.js';
import { tokenRecordOf } from './token-item.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { idempotent, isConditionalFailure, oldItemOf, wireAttribute, type StoreOptions } from '../platform/dynamo/client.js';

/**
 * Partitions of an org's tokens in the report index (`by_org_created`, shared/tables.ts): an index
 * partition takes 1,000 writes a second, and each token is written there when created and again
 * when consumed or revoked, so 16 partitions carry an org's tokens at twice the audit log's ceiling
 * of 8 × 1,000 audited calls a second (shared/audit/audit-store.ts). A report queries each once.
 */
export const REPORT_SHARDS = 16;

/** The report index's partition of a token: its org and a shard from the token's random hex digits. */
export function reportPartition(orgId: number, token: string): string {
  return `${orgId}#${parseInt(token.slice(0, 2), 16) % REPORT_SHARDS}`;
}

/** The consumption's condition on a token that names no player: it is bound to none. */
const UNBOUND = 'attribute_not_exists(player_ref)';

/**
 * Whether a refused consumption was refused only for its player: the token as the refusal returned
 * it is active, unexpired and bound (so the player was the one term that failed). Anything else,
 * no item included (an unknown token), is gone: used, expired or revoked outranks another player.
 */
function isPlayerRefusal(old: Record<string, unknown> | undefined, nowIso: string): boolean {
  if (!old) return false;
  const expiresAt = wireAttribute(old, 'expires_at');
  return (
    wireAttribute(old, 'status') === 'active' &&
    typeof expiresAt === 'string' &&
    expiresAt > nowIso &&
    typeof wireAttribute(old, 'player_ref') === 'string'
  );
}

/** Session tokens in DynamoDB, one item per token. */
export class DynamoTokenStore implements TokenStore {
  constructor(private readonly options: StoreOptions) {}

  async put(token: TokenRecord, ttl: number): Promise<void> {
    const { player_ref, ...fields } = token;
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          ...fields,
          // Only a bound token has the attribute: the consumption's condition reads its absence as unbound.
          ...(player_ref === null ? {} : { player_ref }),
          // Stored as JSON text: "arbitrary JSON" includes numbers DynamoDB cannot hold (beyond 2^53 for
          // the SDK, below 1e-130 or above 1e126 for DynamoDB), which as a map would fail the write.
          metadata: token.metadata === null ? null : JSON.stringify(token.metadata),
          // The session report's index partition (`REPORT_SHARDS`).
          org_shard: reportPartition(token.org_id, token.token),
          [TTL_ATTRIBUTE]: ttl,
        },
        ConditionExpression: 'attribute_not_exists(#token)',
        ExpressionAttributeNames: { '#token': 'token' },
      }),
    );
  }

  async get(token: string): Promise<TokenRecord | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { token }, ConsistentRead: true }),
    );
    return Item ? tokenRecordOf(Item) : undefined;
  }

  async consume(token: string, nowIso: string, sessionId: number, playerUuid: string | null): Promise<TokenRecord> {
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { token },
            UpdateExpression: 'SET #status = :consumed, session_id = :sid, player_uuid = :player, consumed_at = :now',
            // A missing item fails the condition too: unknown tokens are gone like used ones. A bound
            // token (`player_ref`) takes only its player; no player never matches one. Session ids
            // are unique per consumption, so `session_id = :sid` only accepts this very call applied
            // once already (its answer lost): the retry then succeeds instead of a false 410.
            ConditionExpression: `(#status = :active AND expires_at > :now AND ${playerUuid === null ? UNBOUND : `(${UNBOUND} OR player_ref = :player)`}) OR session_id = :sid`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':consumed': 'consumed',
              ':active': 'active',
              ':sid': sessionId,
              ':player': playerUuid,
              ':now': nowIso,
            },
            ReturnValues: 'ALL_NEW',
            // The refusal carries the item, which tells "another player" from "gone" without a read.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return tokenRecordOf(Attributes!);
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      if (isPlayerRefusal(oldItemOf(error), nowIso)) throw new PlayerMismatch(undefined, { cause: error });
      throw new TokenGone({ cause: error });
    }
  }

  async revoke(token: string, orgId: number, nowIso: string, requestId: string): Promise<TokenRecord> {
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand(
          idempotent({
            TableName: this.options.tableName,
            Key: { token },
            UpdateExpression: 'SET #status = :revoked, revoked_at = :now, revoked_by = :rid',
            // `revoked_by = :rid` accepts only this request's own earlier application (a retry).
            ConditionExpression: '(#status = :active AND expires_at > :now AND org_id = :org) OR revoked_by = :rid',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':now': nowIso, ':org': orgId, ':rid': requestId },
            ReturnValues: 'ALL_NEW',
            // The refusal carries the item, which tells "not yours" from "not active" without a read.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return tokenRecordOf(Attributes!);
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      // The token as the refusal returned it; a refusal without it is no such token (DynamoDB
      // returns the item whenever there is one).
      const old = oldItemOf(error);
      if (!old || wireAttribute(old, 'org_id') !== orgId) throw new NotFound('Session not found', { cause: error });
      throw new TokenGone({ cause: error });
    }
  }

  async delete(token: string): Promise<void> {
    await this.options.client.send(new DeleteCommand({ TableName: this.options.tableName, Key: { token } }));
  }
}
