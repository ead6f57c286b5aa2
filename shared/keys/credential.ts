/** A presented API key: its form checked, and reduced to what may be kept (its hash and prefix). */
import { createHash } from 'node:crypto';
import { Unauthenticated } from '../platform/errors.js';

/** The raw API key format: `dpk_` and 40 hex characters. */
const API_KEY_PATTERN = /^dpk_[0-9a-f]{40}$/;

/** A presented API key, reduced to what may be kept: its hash and its 8-character prefix. */
export interface KeyCredential {
  readonly keyHash: string;
  readonly keyPrefix: string;
}

/** SHA-256 (hex) of a raw key: the only form in which a key is ever stored. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex');
}

/** Reduce a presented key to a credential. @throws Unauthenticated when it is malformed. */
export function keyCredential(rawKey: string | undefined): KeyCredential {
  if (!rawKey) throw new Unauthenticated('Missing API key (x-api-key header)');
  if (!API_KEY_PATTERN.test(rawKey)) throw new Unauthenticated('Invalid API key');
  return { keyHash: hashApiKey(rawKey), keyPrefix: rawKey.slice(0, 8) };
}
