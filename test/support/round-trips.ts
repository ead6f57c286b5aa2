/**
 * Counting DynamoDB round trips: an SDK middleware that records every call a client makes while a
 * measurement runs (what, on which table, when it started and ended), and the rule that turns those
 * calls into sequential stages. The stage-count test (test/integration/round-trip-stages.test.ts) and
 * the benchmark (`npm run bench`) both use it, so they count the same way.
 *
 * Start and end are positions in one sequence of events, not clock readings: whether a call was in
 * flight when another started is a question of order, and order does not depend on a noisy machine.
 */
import { logicalTableName } from '../../infra/local/table-names.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One DynamoDB call made during a measurement. */
export interface RoundTrip {
  /** The DynamoDB action: `GetItem`, `PutItem`, `UpdateItem`, `Query`, ... */
  readonly action: string;
  /** The table's logical name (`tokens`), also when the stack's tables are prefixed. */
  readonly table: string | undefined;
  /** The command input as the service wrote it (document form, before marshalling). */
  readonly input: Readonly<Record<string, unknown>>;
  /** Event position when the call was issued. */
  readonly started: number;
  /** Event position when the call settled (NaN while in flight). */
  ended: number;
  /** The command output (document form); absent when the call failed. */
  output?: Readonly<Record<string, unknown>>;
  /** The error name when the call failed (e.g. `ConditionalCheckFailedException`). */
  error?: string;
}

/**
 * Extra work around each recorded call, for measurements that need more than timing (the benchmark
 * reads item images to price index writes). It runs inside the call's interval, so it never changes
 * which calls overlap.
 */
export interface RoundTripProbe {
  /** Change the input before it is sent (e.g. ask for `ReturnConsumedCapacity`). */
  prepare?(input: Record<string, unknown>): Record<string, unknown>;
  before?(call: RoundTrip): Promise<void>;
  after?(call: RoundTrip): Promise<void>;
}

/** `GetItemCommand` -> `GetItem`. */
function actionOf(commandName: string | undefined): string {
  return (commandName ?? 'Unknown').replace(/Command$/, '');
}

/** Records the DynamoDB calls of one client, one measurement at a time. */
export class RoundTripRecorder {
  private recording: RoundTrip[] | undefined;
  private position = 0;
  private readonly name = `roundTripRecorder${Math.random().toString(36).slice(2)}`;

  constructor(private readonly probe: RoundTripProbe = {}) {}

  /**
   * Add the recording middleware to a client (first in the chain, so a call's interval covers the
   * SDK's own work and retries). @returns a function that removes it again
   */
  attach(client: DynamoDBDocumentClient): () => void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const calls = this.recording;
        if (!calls) return next(args);
        const raw = args.input as Record<string, unknown>;
        const input = this.probe.prepare ? this.probe.prepare(raw) : raw;
        const call: RoundTrip = {
          action: actionOf(context.commandName),
          table: tableOf(input),
          input,
          started: ++this.position,
          ended: Number.NaN,
        };
        calls.push(call);
        try {
          await this.probe.before?.(call);
          const result = await next({ ...args, input: input as typeof args.input });
          call.output = result.output as Record<string, unknown>;
          await this.probe.after?.(call);
          return result;
        } catch (error) {
          call.error = (error as { name?: string }).name ?? 'Error';
          throw error;
        } finally {
          call.ended = ++this.position;
        }
      },
      { step: 'initialize', priority: 'high', name: this.name },
    );
    return () => void client.middlewareStack.remove(this.name);
  }

  /** Run `work` and return the calls it made (every call of the client meanwhile: run one request at a time). */
  async measure<T>(work: () => Promise<T>): Promise<{ value: T; calls: RoundTrip[] }> {
    if (this.recording) throw new Error('measurements of one recorder cannot overlap');
    const calls: RoundTrip[] = [];
    this.recording = calls;
    try {
      const value = await work();
      return { value, calls };
    } finally {
      this.recording = undefined;
    }
  }
}

/**
 * The number of sequential stages of a request's calls: the longest chain of calls each issued
 * after the one before it answered (the request's critical path). Calls issued together
 * (`Promise.all`) share a stage; a call issued after one answered while a sibling of that one is
 * still in flight is a stage of its own all the same (on a slower engine the sibling's overlap is
 * timing, not design).
 */
export function stageCount(calls: readonly RoundTrip[]): number {
  const sorted = [...calls].sort((a, b) => a.started - b.started);
  const depth = new Map<RoundTrip, number>();
  for (const call of sorted) {
    const before = sorted.filter((c) => c.ended < call.started).map((c) => depth.get(c)!);
    depth.set(call, 1 + Math.max(0, ...before));
  }
  return Math.max(0, ...depth.values());
}

/** A compact picture of the calls, stage by stage: `GetItem keys + GetItem catalog | UpdateItem counters + ...`. */
export function describeStages(calls: readonly RoundTrip[]): string {
  const sorted = [...calls].sort((a, b) => a.started - b.started);
  const groups: RoundTrip[][] = [];
  let openUntil = -Infinity;
  for (const call of sorted) {
    if (call.started > openUntil) groups.push([]);
    groups.at(-1)!.push(call);
    openUntil = Math.max(openUntil, Number.isNaN(call.ended) ? Infinity : call.ended);
  }
  return groups.map((g) => g.map((c) => `${c.action} ${c.table ?? '?'}`).join(' + ')).join(' | ');
}

/** The logical table of a call: its `TableName`, or a batch's one table (`RequestItems`). */
function tableOf(input: Record<string, unknown>): string | undefined {
  const batch = input.RequestItems && typeof input.RequestItems === 'object' ? Object.keys(input.RequestItems) : [];
  const name = typeof input.TableName === 'string' ? input.TableName : batch.length === 1 ? batch[0] : undefined;
  return name === undefined ? undefined : logicalTableName(name);
}
