/**
 * One run of the due sweep (`webhook-due`, every minute): the minutes `due-minutes.ts` plans, from
 * the watermark (the oldest minute not swept whole) to now, each read whole (16 queries) and its
 * items due by now handled in chunks of {@link SWEEP_CHUNK}: each chunk's tokens read in one
 * BatchGetItem, its keys a few at a time, its events handed to the fan-out, and only then its items
 * deleted. A failure mid-sweep keeps every item not yet handed on for the next run, which makes
 * the same deliveries of what it reads again (a delivery's id comes from its due item); the
 * watermark moves only past minutes swept whole. Each store step is retried with backoff, so a
 * DynamoDB that throttles for a moment costs a delay, not the run. No AWS.
 */
import { logger } from '../platform/observability.js';
import type { Clock } from '../platform/time.js';
import type { ApiKeyRecord } from '../keys/index.js';
import { statusAt, type TokenRecord } from '../sessions/index.js';
import type { DueItem, SourcedEvent } from './delivery-model.js';
import { chunked, MINUTE_MS, nextWatermark, planSweep } from './due-minutes.js';
import { keyExpiring, sessionExpired } from './events-from-records.js';
import type { DueStore, EventSink } from './ports.js';
import { stillExpiring } from './stream-events.js';

/** Due items handled together: one BatchGetItem of tokens (100 keys), at most 100 events handed on, 4 BatchWriteItems of deletes. */
const SWEEP_CHUNK = 100;

/** Keys read at once for a chunk's `key.expiring` items (one GetItem each). */
const KEY_READS_AT_ONCE = 10;

/**
 * Wall time after which a run starts no further chunk (the function's timeout is 60 s): what is
 * left stays for the next run, a minute later.
 */
const SWEEP_BUDGET_MS = 40_000;

/**
 * Retries of each store step of the sweep, beyond the client's own per call (`RETRY_POLICY`):
 * full-jitter backoff of at most 100 ms, 200 ms, 400 ms. Every step is safe to repeat (reads,
 * deliveries made again with the same ids, deletes, a forward-only watermark).
 */
const SWEEP_STEP_RETRY = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_600 } as const;

/** What one sweep reads and writes through. */
export interface DueSweepDeps {
  readonly sink: EventSink;
  readonly due: DueStore;
  readonly keys: { findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined> };
  readonly tokens: { getMany(tokens: readonly string[]): Promise<TokenRecord[]> };
  readonly clock: Clock;
}

/** What a run did (its log line, tests). */
export interface SweepReport {
  /** Minutes read, oldest first (epoch ms). */
  readonly minutes: number;
  /** Items handled (handed on, or found not to happen) and deleted. */
  readonly handled: number;
  /** Events handed to the fan-out. */
  readonly published: number;
  /** The watermark after the run (epoch ms). */
  readonly watermark: number;
}

/** A due item's event source: the same item read again (a sweep retried) makes the same deliveries. */
const sourceOf = (item: DueItem): string => `due:${item.kind}:${item.ref}:${item.due_at}`;

/**
 * See the module comment.
 * @param wallMs the wall clock the run's budget is measured on (the domain's clock may be a test's)
 * @throws the first step that failed after its retries, once the watermark has kept what was done
 */
export async function sweepDue(deps: DueSweepDeps, wallMs: () => number = Date.now): Promise<SweepReport> {
  const started = wallMs();
  const nowMs = deps.clock.now();
  const stored = await retried(() => deps.due.watermark());
  const plan = planSweep(stored, nowMs);
  const done = new Set<number>();
  let handled = 0;
  let published = 0;
  let failure: unknown;
  try {
    for (const minute of plan.minutes) {
      if (wallMs() - started > SWEEP_BUDGET_MS) break;
      const items = (await retried(() => deps.due.dueIn(minute))).filter((item) => Date.parse(item.due_at) <= nowMs);
      let whole = minute + MINUTE_MS <= nowMs;
      for (const chunk of chunked(items, SWEEP_CHUNK)) {
        if (wallMs() - started > SWEEP_BUDGET_MS) {
          whole = false;
          break;
        }
        published += await handleChunk(deps, chunk, nowMs);
        handled += chunk.length;
      }
      if (whole) done.add(minute);
    }
  } catch (error) {
    failure = error;
  }
  const watermark = nextWatermark(plan, done);
  if (stored === undefined || watermark > stored) await retried(() => deps.due.advanceWatermark(watermark));
  const report = { minutes: plan.minutes.length, handled, published, watermark };
  if (failure !== undefined) {
    logger.error('the due sweep stopped; what it did not hand on stays for the next run', {
      error: failure as Error,
      ...report,
      watermark_at: new Date(watermark).toISOString(),
    });
    throw failure;
  }
  if (watermark < plan.lookbackFrom)
    logger.warn('the due sweep left a backlog for the next run', { ...report, watermark_at: new Date(watermark).toISOString() });
  return report;
}

/** One chunk: its events handed on, then its items deleted. @returns the events handed on */
async function handleChunk(deps: DueSweepDeps, chunk: readonly DueItem[], nowMs: number): Promise<number> {
  const expiring = chunk.filter((item) => item.kind === 'session.expired');
  const tokens = new Map(
    expiring.length === 0 ? [] : (await retried(() => deps.tokens.getMany(expiring.map((item) => item.ref)))).map((t) => [t.token, t]),
  );
  const keyItems = chunk.filter((item) => item.kind === 'key.expiring');
  const keys = await retried(() => mapBounded(keyItems, KEY_READS_AT_ONCE, (item) => deps.keys.findInOrg(item.org_id, Number(item.ref))));
  const events: SourcedEvent[] = [];
  for (const item of expiring) {
    const token = tokens.get(item.ref);
    // Consumed, revoked or gone: nothing to announce; the item is done with all the same.
    if (token && statusAt(token, nowMs) === 'expired')
      events.push({ org_id: item.org_id, source_id: sourceOf(item), event: sessionExpired(token, nowMs) });
  }
  keyItems.forEach((item, i) => {
    const key = keys[i];
    if (stillExpiring(key, item))
      events.push({ org_id: item.org_id, source_id: sourceOf(item), event: keyExpiring(key, Date.parse(item.due_at)) });
  });
  if (events.length > 0) await retried(() => deps.sink.publish(events));
  await retried(() => deps.due.done(chunk));
  return events.length;
}

/** `work` for each item, at most `limit` at once; the answers in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (const slice of chunked(items, limit)) answers.push(...(await Promise.all(slice.map(work))));
  return answers;
}

/** `step`, tried again after a failure ({@link SWEEP_STEP_RETRY}); the last failure is thrown. */
async function retried<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= SWEEP_STEP_RETRY.attempts) throw error;
      const bound = Math.min(SWEEP_STEP_RETRY.maxDelayMs, SWEEP_STEP_RETRY.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
    }
  }
}
