/**
 * The requests that make many DynamoDB calls one after another (the session report: a day's audit
 * pages, then the tokens in rounds of batches; a filtered audit-log page: up to 4 reads a shard) stop
 * starting calls when the request's deadline leaves no time for one at its worst, and answer with what
 * they read, saying so: the report `truncated: true`, the audit-log page a cursor that leads on. On a
 * DynamoDB whose every call takes its worst case on a fake clock (`test/support/slow-dynamo.ts`),
 * without the deadline they would run past the function timeout.
 */
import { describe, expect, test } from '@jest/globals';
import { FUNCTION_TIMEOUT } from '../../infra/functions.js';
import { ANSWER_MARGIN_MS, invocationDeadline, withDeadline } from '../../shared/platform/time.js';
import { Overloaded } from '../../shared/platform/errors.js';
import { SessionReports } from '../../shared/usage/reports.js';
import { DynamoAuditStore } from '../../shared/audit/audit-store.js';
import { DynamoTokenReportStore } from '../../shared/usage/token-report-store.js';
import { REPORT_SHARDS } from '../../shared/sessions/token-store.js';
import { DynamoUsageRollupReader } from '../../shared/usage/usage-rollup-reads.js';
import { BATCH_GET_RETRY_ROUNDS, batchGetAll } from '../../shared/platform/dynamo/client.js';
import { onFakeTime, slowDynamo, useSlowDynamo, type Answer } from '../support/slow-dynamo.js';

const TIMEOUT_MS = FUNCTION_TIMEOUT.toMilliseconds();
const DAY = '2026-03-10';
/** Audit records a report's query page holds. */
const PAGE = 100;

/** Run `work` as a Lambda invocation with `ms` left does (the bundle: `withinDeadline`), on the fake clock. */
const invokedWith = <T>(ms: number, work: () => Promise<T>) =>
  onFakeTime(() => withDeadline(invocationDeadline({ getRemainingTimeInMillis: () => ms }), work));

useSlowDynamo();

/**
 * An org whose every partition of the tokens' report index holds `pages` pages of tokens a day
 * (endless: Infinity). A token is `<shard>|<page>|<n>`, created on the first day of the query's range.
 */
function mints(pages: number): Answer {
  return (command, input) => {
    if (command !== 'Query') throw new Error(`unexpected ${command}`);
    const values = input.ExpressionAttributeValues as Record<string, string>;
    const page = (input.ExclusiveStartKey as { page: number } | undefined)?.page ?? 0;
    const Items = Array.from({ length: PAGE }, (_, n) => ({
      token: `${values[':pk']}|${page}|${n}`,
      org_id: 1,
      key_id: 7,
      game_id: 101,
      stream_id: null,
      status: 'active',
      created_at: `${values[':from']}T10:00:00.000Z`,
      expires_at: `${values[':from']}T11:00:00.000Z`,
    }));
    return { Items, ...(page + 1 < pages && { LastEvaluatedKey: { page: page + 1 } }) };
  };
}

/** The session report of org 1 from DAY to `to`, read through `client`. */
function report(client: ReturnType<typeof slowDynamo>['client'], to = DAY) {
  const store = new DynamoTokenReportStore({ client, tableName: 'tokens' });
  const reports = new SessionReports({ store, clock: { now: () => Date.parse(`${to}T12:00:00.000Z`) }, tokenRetentionDays: 7 });
  return reports.report(1, { from: DAY, to });
}

describe('the session report under a slow DynamoDB', () => {
  test('a day of 9,600 sessions would take past the function timeout; under the deadline it stops in time, truncated', async () => {
    const unbounded = await onFakeTime(() => report(slowDynamo(mints(6)).client));
    const whole = await unbounded.outcome;
    expect(whole).toMatchObject({ truncated: false, totals: { created: REPORT_SHARDS * 6 * PAGE } });
    expect(unbounded.elapsed).toBeGreaterThan(TIMEOUT_MS);

    const { outcome, elapsed } = await invokedWith(TIMEOUT_MS, () => report(slowDynamo(mints(6)).client));
    expect(elapsed).toBeLessThanOrEqual(TIMEOUT_MS - ANSWER_MARGIN_MS);
    // What was read in time is counted, and the report says it is not all.
    const cut = await outcome;
    expect(cut.truncated).toBe(true);
    expect(cut.totals.created).toBeGreaterThan(0);
    expect(cut.totals.created).toBeLessThan(whole.totals.created);
  });

  test('a month whose days never end paging stops in time: truncated', async () => {
    const slow = slowDynamo(mints(Infinity));
    const { outcome, elapsed } = await invokedWith(TIMEOUT_MS, () => report(slow.client, '2026-04-09'));
    expect(elapsed).toBeLessThanOrEqual(TIMEOUT_MS - ANSWER_MARGIN_MS);
    await expect(outcome).resolves.toMatchObject({ truncated: true });
  });

  test('the rollup of refused calls stops paging when the deadline leaves no time for another page', async () => {
    const slow = slowDynamo((_, input) => {
      const page = (input.ExclusiveStartKey as { page: number } | undefined)?.page ?? 0;
      const Items = [{ sk: `${DAY}#l#${String(page).padStart(16, '0')}#g0000000000000101`, count: 1 }];
      return { Items, LastEvaluatedKey: { page: page + 1 } };
    });
    const store = new DynamoUsageRollupReader({ client: slow.client, tableName: 'audit' });
    const { outcome, elapsed } = await invokedWith(TIMEOUT_MS, () => store.refusalCounts(1, DAY, DAY));
    const read = await outcome;
    expect(read.cut).toBe(true);
    expect(read.rows.length).toBeGreaterThan(0);
    expect(elapsed).toBeLessThanOrEqual(TIMEOUT_MS - ANSWER_MARGIN_MS);
  });
});

describe('a filtered audit-log page under a slow DynamoDB', () => {
  /** Every shard's log: records that never match the filter, read on and on (newest first). */
  const neverMatching: Answer = (_, input) => {
    const read = ((input.ExclusiveStartKey as { read: number } | undefined)?.read ?? 0) + 1;
    const sk = `2026-03-10T09:59:${String(60 - read).padStart(2, '0')}.000Z#request-${read}`;
    return { Items: [], LastEvaluatedKey: { pk: (input.ExpressionAttributeValues as Record<string, string>)[':pk'], sk, read } };
  };
  const page = (client: ReturnType<typeof slowDynamo>['client']) =>
    new DynamoAuditStore({ client, tableName: 'audit' }).page({ org_id: 1, key_id: 7, limit: 50 });

  test('a request with 5 s left reads 2 of its 4 reads a shard, in time, and its cursor leads on from there', async () => {
    const slow = slowDynamo(neverMatching);
    const { outcome, elapsed } = await invokedWith(ANSWER_MARGIN_MS + 5_000, () => page(slow.client));
    expect(elapsed).toBeLessThanOrEqual(5_000);
    expect(slow.seen.calls).toBe(8 * 2);
    const answer = await outcome;
    expect(answer.records).toEqual([]);
    const cursor = JSON.parse(Buffer.from(answer.cursor!, 'base64url').toString('utf8')) as { sk: string };
    expect(cursor.sk).toBe('2026-03-10T09:59:58.000Z#request-2');
  });

  test('without the deadline the same page reads all 4 a shard', async () => {
    const slow = slowDynamo(neverMatching);
    await (
      await onFakeTime(() => page(slow.client))
    ).outcome;
    expect(slow.seen.calls).toBe(8 * 4);
  });

  test('with no time for even one read, the page is 503 Overloaded (nothing to answer with)', async () => {
    const slow = slowDynamo(neverMatching);
    const { outcome } = await invokedWith(ANSWER_MARGIN_MS + 500, () => page(slow.client));
    await expect(outcome).rejects.toBeInstanceOf(Overloaded);
    expect(slow.seen.attempts).toBe(0);
  });
});

describe('a BatchGetItem under sustained throttling', () => {
  test('keys left unprocessed through every retry round: the read stops short (cut), it does not fail', async () => {
    const slow = slowDynamo((_command, input) => {
      const asked = input.RequestItems as Record<string, { Keys: unknown[] }>;
      return { Responses: { tokens: [] }, UnprocessedKeys: { tokens: { Keys: asked.tokens!.Keys } } };
    });
    const { outcome } = await onFakeTime(() => batchGetAll(slow.client, 'tokens', [{ token: 'a' }, { token: 'b' }]));
    await expect(outcome).resolves.toEqual({ items: [], cut: true });
    // The first call and its retry rounds, each sent.
    expect(slow.seen.calls).toBe(1 + BATCH_GET_RETRY_ROUNDS);
  });
});
