import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { TokenRecord } from '../domain/model.js';
import type { TokenReportStore } from '../domain/ports.js';
import { queryItems, type StoreOptions } from './dynamo-client.js';
import { orgDay, toRecord } from './token-store.js';

/** BatchGetItem reads at most this many keys per request. */
const BATCH_SIZE = 100;
/** Batches in flight at once: enough to read a month of a busy org quickly, few enough not to throttle. */
const BATCH_CONCURRENCY = 8;
/** Rounds of retrying keys DynamoDB left unprocessed (throttling) before giving up loudly. */
const MAX_RETRY_ROUNDS = 5;

/**
 * What the session report reads: the `by_org_day` index (keys only) to find an organization's tokens
 * of a day, then the tokens themselves in batches. Both reads are eventually consistent: a report
 * may miss the last second's changes, and it never competes with the strong reads of the hot path.
 */
export class DynamoTokenReportStore implements TokenReportStore {
  constructor(private readonly options: StoreOptions) {}

  async tokensCreatedOn(orgId: number, day: string, limit: number): Promise<string[]> {
    // Past the limit the report is cut short anyway: stop paging.
    const items = await queryItems(
      this.options.client,
      {
        TableName: this.options.tableName,
        IndexName: 'by_org_day',
        KeyConditionExpression: 'org_day = :day',
        ExpressionAttributeValues: { ':day': orgDay(orgId, day) },
      },
      limit,
    );
    return items.map((item) => item.token as string);
  }

  async getMany(tokens: readonly string[]): Promise<TokenRecord[]> {
    const batches: string[][] = [];
    for (let i = 0; i < tokens.length; i += BATCH_SIZE) batches.push(tokens.slice(i, i + BATCH_SIZE));
    const found: TokenRecord[] = [];
    for (let i = 0; i < batches.length; i += BATCH_CONCURRENCY) {
      const pages = await Promise.all(batches.slice(i, i + BATCH_CONCURRENCY).map((batch) => this.batchGet(batch)));
      for (const page of pages) found.push(...page);
    }
    return found;
  }

  /** One batch, retrying the keys DynamoDB did not process. A token cleaned up meanwhile is simply absent. */
  private async batchGet(tokens: readonly string[]): Promise<TokenRecord[]> {
    const found: TokenRecord[] = [];
    let keys: Record<string, unknown>[] = tokens.map((token) => ({ token }));
    for (let round = 0; keys.length > 0; round++) {
      if (round > MAX_RETRY_ROUNDS) throw new Error(`BatchGetItem left ${keys.length} keys unprocessed`);
      if (round > 0) await new Promise((done) => setTimeout(done, 50 * 2 ** round));
      const { Responses, UnprocessedKeys } = await this.options.client.send(
        new BatchGetCommand({ RequestItems: { [this.options.tableName]: { Keys: keys } } }),
      );
      found.push(...(Responses?.[this.options.tableName] ?? []).map(toRecord));
      keys = UnprocessedKeys?.[this.options.tableName]?.Keys ?? [];
    }
    return found;
  }
}
