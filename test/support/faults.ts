/**
 * Fault injection at the store boundary: a middleware on the stack's DynamoDB client that makes the
 * Nth DynamoDB call of the next request fail — throttled, refused by a condition that cannot fail,
 * a network error, or a timeout after the write was applied (its answer lost). It sits inside the
 * service's retry middleware, so it sees every attempt: a fault may hit only a call's first attempt
 * (a retry can recover) or every attempt (it cannot).
 */
import { logicalTableName } from '../../infra/local/table-names.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isRetrySafe } from '../../shared/platform/dynamo/client.js';

/** What goes wrong. */
export type FaultKind = 'throttle' | 'conditional' | 'network' | 'timeout';

/** One fault: which call of the request, what, and whether every attempt of it fails. */
export interface Fault {
  readonly kind: FaultKind;
  /** 0-based index of the DynamoDB call within the request, in the order the calls start; or the first call that matches. */
  readonly call: number | ((call: CallRecord) => boolean);
  /** true: every attempt of that call fails; false: only its first attempt. */
  readonly persistent: boolean;
}

/** One DynamoDB call the request made. */
export interface CallRecord {
  readonly command: string;
  /** The table's logical name (`tokens`), also when the stack's tables are prefixed. */
  readonly table: string;
  readonly conditional: boolean;
  /** Whether the service may repeat it after a failure without an answer. */
  readonly retrySafe: boolean;
}

/** What happened while a fault was armed. */
export interface FaultOutcome {
  readonly calls: readonly CallRecord[];
  /** The faulted call, when the request made that many calls and the fault applied to it. */
  readonly target: CallRecord | undefined;
  /** Attempts the fault failed (0: it never fired). */
  readonly failedAttempts: number;
  /** Attempts of the faulted call in all (more than the failed ones: a retry recovered). */
  readonly attempts: number;
}

interface Armed {
  readonly fault: Fault;
  readonly calls: CallRecord[];
  /** Index of the faulted call, once known. */
  target: number | undefined;
  failedAttempts: number;
  attempts: number;
}

/** Errors as the SDK and Node produce them. */
function faultError(kind: Exclude<FaultKind, 'timeout'>): Error {
  switch (kind) {
    case 'throttle':
      return Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded.'), {
        name: 'ProvisionedThroughputExceededException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    case 'conditional':
      return Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    case 'network':
      return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  }
}

/** The injector of one stack's client. */
export class FaultInjector {
  private armed: Armed | undefined;

  constructor(client: DynamoDBDocumentClient) {
    client.middlewareStack.add(
      (next, context) => {
        // One closure per DynamoDB call: the service's retries call back into the same one.
        let index: number | undefined;
        return async (args) => {
          const armed = this.armed;
          if (!armed) return next(args);
          const input = args.input as { TableName?: string; ConditionExpression?: string };
          if (index === undefined) {
            index = armed.calls.length;
            armed.calls.push({
              command: (context.commandName ?? '').replace(/Command$/, ''),
              table: logicalTableName(input.TableName ?? ''),
              conditional: Boolean(input.ConditionExpression),
              retrySafe: isRetrySafe(context.commandName, args.input),
            });
          }
          const { fault } = armed;
          const call = armed.calls[index]!;
          if (armed.target === undefined && (typeof fault.call === 'number' ? index === fault.call : fault.call(call)))
            armed.target = index;
          if (index !== armed.target || !applies(fault.kind, call)) return next(args);
          armed.attempts++;
          if (!fault.persistent && armed.attempts > 1) return next(args);
          if (fault.kind !== 'timeout') {
            armed.failedAttempts++;
            throw faultError(fault.kind);
          }
          // Applied, but the answer never arrives (an answer that is an error, e.g. a refused
          // condition, is passed on: nothing was lost).
          await next(args);
          armed.failedAttempts++;
          throw Object.assign(new Error('request timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
        };
      },
      // Inside the service's `retrySafely` (same step, same priority, added later): every attempt passes here.
      { step: 'initialize', priority: 'low', name: 'faultInjector' },
    );
  }

  /** Fail a call of the requests that follow, until {@link disarm}. */
  arm(fault: Fault): void {
    this.armed = { fault, calls: [], target: undefined, failedAttempts: 0, attempts: 0 };
  }

  /** Stop injecting; what the armed period saw. */
  disarm(): FaultOutcome {
    const armed = this.armed!;
    this.armed = undefined;
    const target = armed.target === undefined ? undefined : armed.calls[armed.target];
    return {
      calls: armed.calls,
      target: target && applies(armed.fault.kind, target) ? target : undefined,
      failedAttempts: armed.failedAttempts,
      attempts: armed.attempts,
    };
  }
}

/** A conditional failure is only injected where it cannot happen: calls with no condition. */
function applies(kind: FaultKind, call: CallRecord): boolean {
  return kind !== 'conditional' || !call.conditional;
}

/** What {@link FaultRain} injected, by kind. */
type RainCounts = Record<FaultKind, number>;

/**
 * Faults that fall on any DynamoDB call of the stack's client while {@link FaultRain.start}ed, each
 * call with a fixed chance, on its first attempt only: the load a flaky DynamoDB puts on the
 * webhook pipeline. On the tables the pipeline alone writes (`tables`), every kind that happens:
 * throttled, a network error, a timeout after the write was applied; on the others only throttling, which the service's retry absorbs, so a request's answer stays the
 * same and what the pipeline does with it can be checked against it. The draws come from a seed.
 */
export class FaultRain {
  private chance = 0;
  private state = 1;
  private tables: readonly string[] = [];
  readonly injected: RainCounts = { throttle: 0, conditional: 0, network: 0, timeout: 0 };

  constructor(client: DynamoDBDocumentClient) {
    client.middlewareStack.add(
      (next, context) => {
        let decided: FaultKind | null | undefined;
        return async (args) => {
          // One draw per call (its retries pass here again, and get through).
          if (decided !== undefined || this.chance === 0) {
            decided = decided ?? null;
            return next(args);
          }
          const input = args.input as { TableName?: string };
          const table = logicalTableName(input.TableName ?? '');
          decided = this.draw() < this.chance ? this.kind(table, context.commandName) : null;
          if (decided === null) return next(args);
          this.injected[decided]++;
          if (decided !== 'timeout') throw faultError(decided);
          await next(args);
          throw Object.assign(new Error('request timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
        };
      },
      { step: 'initialize', priority: 'low', name: 'faultRain' },
    );
  }

  /** Fail each call from now on with this chance (0 to 1), the pipeline's `tables` with every kind. */
  start(chance: number, seed: number, tables: readonly string[]): void {
    this.chance = chance;
    this.state = seed >>> 0 || 1;
    this.tables = tables;
  }

  stop(): void {
    this.chance = 0;
  }

  /** xorshift32: the same seed, the same faults in the same order of calls. */
  private draw(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 2 ** 32;
  }

  private kind(table: string, command: string | undefined): FaultKind {
    if (!this.tables.includes(table)) return 'throttle';
    const kinds: FaultKind[] = ['throttle', 'network', 'timeout'];
    // A timeout only where there is a write to apply.
    const picked = kinds[Math.floor(this.draw() * kinds.length)]!;
    return picked === 'timeout' && /^(Get|Query|Scan|BatchGet)/.test(command ?? '') ? 'network' : picked;
  }
}
