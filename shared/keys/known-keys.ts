/**
 * The keys this container has authenticated, remembered so that a request may write before its own
 * authentication has answered only when its key has already proved valid here: an
 * `Idempotency-Key` claim rides with the key read for such a key, and waits for it otherwise
 * (docs/api.md#idempotent-retries, SECURITY.md "No write before authentication"). A caller whose key
 * is unknown here, malformed or failed its last authentication in this container writes nothing.
 */
import type { ApiKeyRecord } from './model.js';

/** Keys remembered at most: a container serving more forgets the least recently seen first. */
const MAX_KEYS = 10_000;

/** Key hashes of keys that passed authentication in this container, with their expiry (ms; null: none). */
export class KnownKeys {
  private readonly keys = new Map<string, number | null>();

  /** A key passed authentication: remember it (most recently seen last). */
  valid(key: ApiKeyRecord): void {
    this.keys.delete(key.key_hash);
    this.keys.set(key.key_hash, key.expires_at === null ? null : Date.parse(key.expires_at));
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }

  /** A key failed authentication (unknown, revoked, expired, its org's tier): forget it. */
  refused(keyHash: string): void {
    this.keys.delete(keyHash);
  }

  /** Whether the key of `keyHash` passed its last authentication here and has not expired since. */
  has(keyHash: string, now: number): boolean {
    const expires = this.keys.get(keyHash);
    return expires === null || (expires !== undefined && expires > now);
  }
}
