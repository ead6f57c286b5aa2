import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFound, TokenGone } from '../domain/errors.js';
import type { TokenRecord } from '../domain/model.js';
import type { TokenStore } from '../domain/ports.js';
import { TTL_ATTRIBUTE } from '../tables.js';
import { isConditionalFailure, type StoreOptions } from './dynamo-client.js';

/** Session tokens in DynamoDB, one item per token. */
export class DynamoTokenStore implements TokenStore {
  constructor(private readonly options: StoreOptions) {}

  async put(token: TokenRecord, ttl: number): Promise<void> {
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { ...token, [TTL_ATTRIBUTE]: ttl },
        ConditionExpression: 'attribute_not_exists(#token)',
        ExpressionAttributeNames: { '#token': 'token' },
      }),
    );
  }

  async get(token: string): Promise<TokenRecord | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { token }, ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async consume(token: string, nowIso: string, sessionId: number, playerUuid: string | null): Promise<TokenRecord> {
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { token },
          UpdateExpression: 'SET #status = :consumed, session_id = :sid, player_uuid = :player, consumed_at = :now',
          // A missing item fails the condition too: unknown tokens are gone like used ones.
          ConditionExpression: '#status = :active AND expires_at > :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':consumed': 'consumed',
            ':active': 'active',
            ':sid': sessionId,
            ':player': playerUuid,
            ':now': nowIso,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(Attributes!);
    } catch (error) {
      if (isConditionalFailure(error)) throw new TokenGone({ cause: error });
      throw error;
    }
  }

  async revoke(token: string, orgId: number, nowIso: string, requestId: string): Promise<TokenRecord> {
    try {
      const { Attributes } = await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { token },
          UpdateExpression: 'SET #status = :revoked, revoked_at = :now, revoked_by = :rid',
          ConditionExpression: '#status = :active AND expires_at > :now AND org_id = :org',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':now': nowIso, ':org': orgId, ':rid': requestId },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(Attributes!);
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      // Only the refusal path pays for a second read, to tell "not yours" from "not active".
      const current = await this.get(token);
      if (!current || current.org_id !== orgId) throw new NotFound('Session not found', { cause: error });
      throw new TokenGone({ cause: error });
    }
  }

  async unrevoke(token: string, requestId: string): Promise<void> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { token },
          UpdateExpression: 'SET #status = :active REMOVE revoked_at, revoked_by',
          ConditionExpression: '#status = :revoked AND revoked_by = :rid',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':revoked': 'revoked', ':rid': requestId },
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }

  async delete(token: string): Promise<void> {
    await this.options.client.send(new DeleteCommand({ TableName: this.options.tableName, Key: { token } }));
  }
}

function toRecord(item: Record<string, unknown>): TokenRecord {
  const { [TTL_ATTRIBUTE]: _ttl, revoked_by: _by, ...record } = item;
  return record as unknown as TokenRecord;
}
