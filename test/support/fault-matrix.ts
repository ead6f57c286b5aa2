/**
 * The fault tier's harness, shared by `test/integration/faults-*.test.ts`: a stack with a
 * {@link FaultInjector} at the store boundary, and the matrix that runs an operation once per
 * DynamoDB call it makes and per fault kind — throttled, refused by a condition that cannot fail, a
 * network error, a timeout after the write was applied — on its first attempt only (a safe retry
 * must recover) and on every attempt, then checks the answer ({@link FaultRun.checkAnswer}) and the
 * operation's own invariants on the tables. The counts go to the reliability figures, summed over
 * the fault files.
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { adminApi, type AdminApi } from './admin-api.js';
import { FaultInjector, type FaultKind, type FaultOutcome } from './faults.js';
import { addFigures, addFigureLine } from './figures.js';
import { auditOfRequest, createTestKey, roomInMinute, tokensOfKey, UNLIMITED, windowCounts, type TestKey } from './keys.js';
import { capturedLogs, startStack, type Stack } from './local-stack.js';
import { sessionsApi, type Reply } from './sessions-api.js';
import { stopAll } from './teardown.js';

/** What an operation's check gets: the faulted request's answer and what the fault did. */
export interface Faulted {
  readonly reply: Reply;
  readonly outcome: FaultOutcome;
  readonly kind: FaultKind;
}

/** An operation under test: prepare its state, run it once, check the tables after. */
export interface Operation<S> {
  readonly name: string;
  /** The status it answers without faults. */
  readonly baseline: number;
  readonly org: number;
  setup(): Promise<S>;
  run(state: S): Promise<Reply>;
  check(state: S, faulted: Faulted): Promise<void>;
}

/** Consume and validate take no credential. */
export const fuzzless = { raw: '' } as TestKey;

const KINDS: { kind: FaultKind; persistent: boolean }[] = [
  { kind: 'throttle', persistent: false },
  { kind: 'throttle', persistent: true },
  { kind: 'network', persistent: false },
  { kind: 'network', persistent: true },
  { kind: 'timeout', persistent: false },
  { kind: 'timeout', persistent: true },
  { kind: 'conditional', persistent: true },
];

/** One fault file's run: its stack and injector (set in `beforeAll`), the session ids it saw and its figures. */
class FaultRun {
  stack!: Stack;
  faults!: FaultInjector;
  admin!: AdminApi;
  /** Session ids handed out during the file: none may repeat. */
  readonly sessionIds: number[] = [];
  private readonly figures = { faultsInjected: 0, faultRequests: 0, recoveredByRetry: 0, auditCorrectionsLogged: 0 };

  async start(): Promise<void> {
    // Faults are injected into every call of the service's client: the workers' calls would take some.
    this.stack = await startStack({ workers: false });
    this.faults = new FaultInjector(this.stack.services.client);
    this.admin = adminApi(this.stack);
  }

  /** Add this file's counts to the figures (summed over the fault files), stop the stack (also after a failed start). */
  async stop(file: string): Promise<void> {
    await stopAll(
      () => {
        addFigures(this.figures);
        addFigureLine(
          `${file}: ${this.figures.faultsInjected.toLocaleString('en-US')} failed DynamoDB attempts injected into ` +
            `${this.figures.faultRequests.toLocaleString('en-US')} requests, ${this.figures.recoveredByRetry} recovered by a safe retry`,
        );
      },
      () => this.stack?.stop(),
    );
  }

  /** A new key of org 1 that no limit of the file's calls meets, with these settings. */
  readonly key = (settings = {}) => createTestKey(this.stack, { ...UNLIMITED, ...settings });
  /** The sessions API presenting this key. */
  readonly api = (k: TestKey) => sessionsApi(this.stack, () => k.raw);
  /** A token's item, read consistently. */
  readonly stored = async (token: string) =>
    (
      await this.stack.services.client.send(
        new GetCommand({ TableName: this.stack.tableNames.tokens, Key: { token }, ConsistentRead: true }),
      )
    ).Item;

  /** Tokens of a key are never more than its counted calls; success counts exactly once per window. */
  readonly countedTokens = async (k: TestKey, okTokens: number, ok: boolean): Promise<void> => {
    const counts = await windowCounts(this.stack, k.record);
    const tokens = await tokensOfKey(this.stack, k.record.id);
    expect(tokens.length).toBe(okTokens);
    expect(tokens.length).toBeLessThanOrEqual(Math.min(counts.minute ?? 0, counts.day ?? 0));
    if (ok) expect(counts).toEqual({ minute: okTokens, day: okTokens });
  };

  /** Count a targeted fault into the figures. */
  readonly counted = (outcome: FaultOutcome): FaultOutcome => {
    this.figures.faultsInjected += outcome.failedAttempts;
    this.figures.faultRequests++;
    if (outcome.attempts > outcome.failedAttempts) this.figures.recoveredByRetry++;
    return outcome;
  };

  /** Fault every DynamoDB call of the operation in turn, with every kind of fault, and check each outcome. */
  async matrix(op: Operation<unknown>): Promise<void> {
    let injectedHere = 0;
    for (const { kind, persistent } of KINDS) {
      for (let call = 0; ; call++) {
        roomInMinute(this.stack); // setup, run and check in one minute window
        const state = await op.setup();
        this.faults.arm({ kind, call, persistent });
        const reply = await op.run(state);
        const outcome = this.faults.disarm();
        if (outcome.calls.length <= call) break;
        // Not applicable to that call (a conditional failure where one can happen), or a timeout of a
        // call whose answer was an error anyway: nothing was injected.
        if (!outcome.target || outcome.failedAttempts === 0) continue;
        this.figures.faultsInjected += outcome.failedAttempts;
        this.figures.faultRequests++;
        injectedHere++;
        await this.checkAnswer(op, kind, persistent, reply, outcome);
        await op.check(state, { reply, outcome, kind });
      }
    }
    expect(injectedHere).toBeGreaterThan(0);
  }

  /** What every faulted answer must be, and what the audit may say about it. */
  private async checkAnswer(
    op: Operation<unknown>,
    kind: FaultKind,
    persistent: boolean,
    reply: Reply,
    outcome: FaultOutcome,
  ): Promise<void> {
    const target = outcome.target!;
    const label = `${op.name}: ${persistent ? 'every attempt of' : 'first attempt of'} call ${outcome.calls.indexOf(target)} (${target.command} ${target.table}) ${kind}`;
    const recoverable = !persistent && (kind === 'throttle' || (kind !== 'conditional' && target.retrySafe));
    expect({ label, ok: reply.status === op.baseline || reply.status >= 500 }).toEqual({ label, ok: true });
    if (recoverable) {
      expect({ label, status: reply.status }).toEqual({ label, status: op.baseline });
      expect(outcome.attempts).toBe(2);
      this.figures.recoveredByRetry++;
    }
    if (reply.status >= 500) {
      if (kind === 'throttle') {
        expect({ label, status: reply.status }).toEqual({ label, status: 503 });
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      if (typeof reply.body === 'object')
        expect(reply.body).toEqual({ success: false, error: expect.any(String), code: expect.any(String), request_id: expect.any(String) });
      else expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    }
    // The audit never claims another outcome than the client's. Only when the correction of the
    // optimistic record itself failed on every attempt may it keep its 200, and then the log says so.
    const requestId = reply.headers.get('x-request-id');
    const audit = await auditOfRequest(this.stack, op.org, requestId);
    const correctionFailed = persistent && target.command === 'PutItem' && target.table === 'audit' && reply.status !== 200;
    if (correctionFailed && audit.some((r) => r.status !== reply.status)) {
      expect(capturedLogs.join('')).toContain(`audit record of request ${requestId} must say ${reply.status}`);
      this.figures.auditCorrectionsLogged++;
      return;
    }
    expect({ label, statuses: audit.map((r) => r.status) }).toEqual({ label, statuses: audit.map(() => reply.status) });
  }
}

/** A fault run for this test file: started before its tests, its figures added and its stack stopped after them. */
export function useFaultRun(file: string): FaultRun {
  const run = new FaultRun();
  beforeAll(() => run.start());
  afterAll(() => run.stop(file));
  return run;
}
