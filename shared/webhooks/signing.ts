/**
 * Standard Webhooks 1.0 signing: an endpoint's secret, the signature of one delivery attempt, and
 * the headers that carry it. A partner verifies with the stock `standardwebhooks` library (or
 * Svix's), so every format here is the specification's, byte for byte: the secret is `whsec_` and
 * the base64 of the key bytes, the signed content is `<id>.<timestamp>.<body>`, the signature is
 * `v1,` and the base64 of its HMAC-SHA256 keyed by the decoded bytes (not by the `whsec_` text).
 *
 * Pure: no storage, no clock (the caller gives the timestamp), nothing logged. A secret never
 * appears in an error message, since messages end up in logs.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** Standard Webhooks' bounds on a secret's key: at least 24 bytes (192 bits), at most 64 (one HMAC-SHA256 block). */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/** A new secret's key: 32 bytes, SHA-256's output size, the strength HMAC-SHA256 can use. */
const NEW_KEY_BYTES = 32;

/** How long the previous secret keeps signing after a rotation, beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Canonical base64 with padding: the only form `standardwebhooks` decodes the same way we do. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A webhook id as it may appear in the signed content and the `webhook-id` header: visible ASCII
 * without `.` (the content's separator: an id holding one could be read as another id and
 * timestamp under the same signature), space or `,` (the signature header's separators).
 */
const ID = /^[\x21-\x2b\x2d\x2f-\x7e]{1,256}$/;

/** A new endpoint secret from the CSPRNG: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return PREFIX + randomBytes(NEW_KEY_BYTES).toString('base64');
}

/**
 * The key bytes of a secret. @throws when it is not `whsec_` + canonical base64 of 24 to 64 bytes
 * (a stored secret that does not parse is a bug: never sign with a weaker key than promised).
 */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  const key = encoded !== undefined && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
  if (key === undefined || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new Error(`not a webhook secret: expected ${PREFIX} and the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}

/** Whether `value` is a well-formed secret ({@link secretKey} would accept it). */
export function isSecret(value: string): boolean {
  try {
    secretKey(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The signature of one attempt: `v1,` + base64 HMAC-SHA256 of `<id>.<timestampSeconds>.<body>`,
 * keyed by the secret's decoded bytes. `body` is the exact text sent (signed as UTF-8).
 * @throws on a malformed secret, an id {@link deliveryHeaders} could not carry, or a timestamp
 * that is not whole non-negative seconds.
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!ID.test(id)) throw new Error('webhook id must be 1 to 256 visible ASCII characters without ".", "," or space');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('webhook timestamp must be whole seconds since the epoch');
  }
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt. */
export interface DeliveryHeaders {
  /** The delivery's id, the same at every attempt, so a receiver can drop a repeat. */
  readonly 'webhook-id': string;
  /** Seconds since the epoch at this attempt (receivers refuse one too far from their clock). */
  readonly 'webhook-timestamp': string;
  /** One `v1,<base64>` per secret in force, space-separated. */
  readonly 'webhook-signature': string;
}

/** One delivery attempt to sign. */
export interface SignedAttempt {
  /** The delivery id (`webhook-id`). */
  readonly id: string;
  /** When the attempt is made, whole seconds since the epoch. */
  readonly timestampSeconds: number;
  /** The body exactly as it is sent. */
  readonly body: string;
  /** Every secret in force, newest first ({@link secretsInForce}); at least one. */
  readonly secrets: readonly string[];
}

/**
 * The headers of an attempt: its id, its timestamp and a signature per secret. During a rotation
 * both the new and the old secret sign, so a receiver still holding either one verifies.
 * @throws with no secret (a delivery that nobody could verify must not go out).
 */
export function deliveryHeaders(attempt: SignedAttempt): DeliveryHeaders {
  if (attempt.secrets.length === 0) throw new Error('a delivery needs at least one secret to sign with');
  const { id, timestampSeconds, body } = attempt;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': attempt.secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' '),
  };
}

/** An endpoint's secrets: the current one and, for a while after a rotation, the one it replaced. */
export interface EndpointSecrets {
  readonly secret: string;
  readonly previous_secret?: string | null;
  /** ISO 8601: when the previous secret stops signing. */
  readonly previous_secret_until?: string | null;
}

/** The secrets that sign at `nowMs`: the current one, then the previous one until its overlap ends. */
export function secretsInForce(secrets: EndpointSecrets, nowMs: number): string[] {
  const { secret, previous_secret, previous_secret_until } = secrets;
  const previousSigns = previous_secret != null && previous_secret_until != null && nowMs < Date.parse(previous_secret_until);
  return previousSigns ? [secret, previous_secret] : [secret];
}

/**
 * The secrets after a rotation at `nowMs`: `next` becomes current and the current one signs beside
 * it for {@link ROTATION_OVERLAP_MS}. A second rotation within that time drops the oldest secret:
 * a receiver keeps at most two, so two stay in force, never three.
 */
export function rotatedSecrets(current: EndpointSecrets, nowMs: number, next: string = generateSecret()): Required<EndpointSecrets> {
  secretKey(next);
  return {
    secret: next,
    previous_secret: current.secret,
    previous_secret_until: new Date(nowMs + ROTATION_OVERLAP_MS).toISOString(),
  };
}
