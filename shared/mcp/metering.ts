import type { CallSubject, Effect, KeyCalls } from '../keys/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { CallContext } from '../platform/call.js';

/** The effect of a call that only counts: nothing to perform, nothing to undo. */
const NOTHING: Effect<undefined> = { run: async () => undefined, undo: async () => undefined };

/**
 * The metering of one MCP HTTP request: whatever it carries (initialize, tools/list, one tool call),
 * it is one key-authenticated call, counted once in both rate windows and audited once as `action`
 * (e.g. `mcp:tools/call:create_session`). A tool meters it together with its own main write or read,
 * in one parallel stage (`KeyCalls.meter`); every other method meters it with no effect.
 */
export class RequestMeter {
  private used = false;
  /**
   * An error that must end the HTTP request itself rather than become a tool error: the key's rate
   * limit (429 with its headers) or a failure of the service (5xx). Set by the tool that met it.
   */
  failure: unknown;

  constructor(
    private readonly keyCalls: KeyCalls,
    readonly key: ApiKeyRecord,
    readonly call: CallContext,
    /** The audit action of this request. */
    readonly action: string,
  ) {}

  /** Whether the request has been counted and audited. */
  get metered(): boolean {
    return this.used;
  }

  /** Count and audit the request, performing `effect` in the same stage; its result is returned. */
  run<T>(subject: Omit<CallSubject, 'action'>, effect: Effect<T>): Promise<T> {
    this.claim();
    return this.keyCalls.meter(this.key, this.call, { ...subject, action: this.action }, effect);
  }

  /** Count and audit a request that has nothing else to write, answered with `status` (202: a notification). */
  async count(status = 200): Promise<void> {
    await this.run(status === 200 ? {} : { answered: status }, NOTHING);
  }

  /** Count and audit the request as refused with `refusal`, which is then thrown (or a 429 that came first). */
  refuse(subject: Omit<CallSubject, 'action'>, refusal: Error): Promise<never> {
    this.claim();
    return this.keyCalls.meter(this.key, this.call, { ...subject, action: this.action }, undefined, refusal);
  }

  /** Hand the metering to a domain operation that meters exactly once itself (`Sessions.create`). */
  delegate<T>(operation: (action: string) => Promise<T>): Promise<T> {
    this.claim();
    return operation(this.action);
  }

  private claim(): void {
    // Counting a request twice would charge the key twice: a programming error, never the caller's.
    if (this.used) throw new Error(`MCP request ${this.call.requestId} metered twice`);
    this.used = true;
  }
}
