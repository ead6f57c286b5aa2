/**
 * The keys this container has authenticated, and the calls that run ahead of their key's read.
 *
 * A request may write before its own authentication has answered only when its key has already
 * proved valid here: an `Idempotency-Key` claim rides with the key read for such a key, and so does
 * the whole metered stage of an operation that runs ahead (create-session: its count, its token and
 * its audit record; docs/decisions.md#create-session-in-one-stage). What the key read then says
 * decides: a key refused, changed or a claim already answered takes every speculative write back
 * (SECURITY.md, "What may be speculative"). A caller whose key is unknown here, malformed or failed
 * its last authentication in this container writes nothing before its key is read.
 */
import type { ApiKeyRecord } from './model.js';

/** Keys remembered at most: a container serving more forgets the least recently seen first. */
const MAX_KEYS = 10_000;

/** Keys that passed authentication in this container, by key hash, as they were read. */
export class KnownKeys {
  private readonly keys = new Map<string, ApiKeyRecord>();

  /** A key passed authentication: remember it (most recently seen last). */
  valid(key: ApiKeyRecord): void {
    this.keys.delete(key.key_hash);
    this.keys.set(key.key_hash, key);
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }

  /** A key failed authentication (unknown, revoked, expired, its org's tier): forget it. */
  refused(keyHash: string): void {
    this.keys.delete(keyHash);
  }

  /** The key of `keyHash` as its last authentication here read it, unless it has expired since. */
  get(keyHash: string, now: number): ApiKeyRecord | undefined {
    const key = this.keys.get(keyHash);
    return key && (key.expires_at === null || Date.parse(key.expires_at) > now) ? key : undefined;
  }
}

/**
 * Whether the key as read now has the terms the call ran ahead with: everything but its use stamp
 * (which every container writes once a minute). Any other difference (revocation, limits, scopes,
 * tier, a rotation) sends the call back to the slow path.
 */
export function sameTerms(ran: ApiKeyRecord, read: ApiKeyRecord): boolean {
  const { last_used_at: _ran, ...a } = ran;
  const { last_used_at: _read, ...b } = read;
  return canonical(a) === canonical(b);
}

/** JSON with object keys sorted: two reads of one item compare equal whatever their attribute order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}

/** What a call running ahead waits for beside its own writes: its key's read, and its `Idempotency-Key` claim. */
export interface Ahead<C> {
  /** The key as its authentication reads it now (rejects with the refusal: 401, 403 tier). */
  readonly key: Promise<ApiKeyRecord>;
  /** The claim of the call's `Idempotency-Key`, when it has one. */
  readonly claim?: Promise<C>;
}

/**
 * How a call that ran ahead ended when the key's read or the claim overruled it; every speculative
 * write it made has been taken back. Not a domain error: it must reach the key pipeline through any
 * layer that answers domain refusals itself (an MCP tool answers them as tool errors).
 */
export class AheadVerdict extends Error {
  override readonly name = 'AheadVerdict';
  constructor(
    /**
     * `refused`: the key's authentication refused it (`cause` is the refusal); `changed`: the key
     * changed since this container read it (serve the call again with `key`); `replayed`: the
     * claim found a stored answer (`stored`, given again).
     */
    readonly verdict:
      | { readonly kind: 'refused'; readonly refusal: unknown }
      | { readonly kind: 'changed'; readonly key: ApiKeyRecord }
      | { readonly kind: 'replayed'; readonly stored: unknown },
  ) {
    super(`call ahead of its key read: ${verdict.kind}`);
  }
}
