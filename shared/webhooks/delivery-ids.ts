/**
 * Delivery ids: `msg_<webhook_id>_<ulid>`, the Standard Webhooks `webhook-id` of every attempt of
 * one delivery. The ULID's time is the event's (milliseconds), so an endpoint's deliveries sort
 * by id in time order (the deliveries list reads its partition backwards); its 80 random bits are
 * the first 80 bits of SHA-256 of `<source_id>:<webhook_id>`, so an event's source read twice (a
 * stream batch retried) makes the same id for the same endpoint, and its second create is a no-op.
 * The endpoint's id is in the delivery id, so a delivery is found from its id alone.
 */
import { createHash } from 'node:crypto';

/** Crockford's base32 alphabet, as ULIDs spell them. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `msg_<webhook id>_<26-character ULID>`. */
const DELIVERY_ID = /^msg_([1-9][0-9]{0,15})_([0-9A-HJKMNP-TV-Z]{26})$/;

/** The delivery id of the event `sourceId` (at `atMs`) for the endpoint `webhookId`. */
export function deliveryId(webhookId: number, atMs: number, sourceId: string): string {
  const random = createHash('sha256').update(`${sourceId}:${webhookId}`).digest().subarray(0, 10);
  return `msg_${webhookId}_${ulidTime(atMs)}${base32(random)}`;
}

/** The endpoint a delivery id names; undefined when `id` is not a delivery id. */
export function webhookOfDelivery(id: string): number | undefined {
  const match = DELIVERY_ID.exec(id);
  if (!match) return undefined;
  const webhookId = Number(match[1]);
  return Number.isSafeInteger(webhookId) ? webhookId : undefined;
}

/** The 48-bit time of a ULID: 10 characters, most significant first. */
function ulidTime(ms: number): string {
  let rest = Math.floor(ms);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[rest % 32]! + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** 80 bits as 16 base32 characters, most significant first. */
function base32(bytes: Uint8Array): string {
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = CROCKFORD[Number(bits & 31n)]! + out;
    bits >>= 5n;
  }
  return out;
}
