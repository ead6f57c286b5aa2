/**
 * Delivery ids: `msg_<webhook_id>_<ulid>`, the Standard Webhooks `webhook-id` of every attempt of a
 * delivery. The ULID's time is the event's (so an endpoint's deliveries sort by event time, newest
 * first in a descending query) and its 80 "random" bits are the first 80 bits of
 * SHA-256(`<source_id>:<webhook_id>`): the same event read twice (a stream batch retried, a due item
 * swept again) makes the same id for the same endpoint, and the store's conditional put turns the
 * second delivery into a no-op. Pure.
 */
import { createHash } from 'node:crypto';

/** Crockford's base32 alphabet (no I, L, O, U), as ULIDs spell them. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The largest time a ULID holds: 48 bits of milliseconds. */
const MAX_TIME = 2 ** 48 - 1;

/** `value` (non-negative, below 32^length) in `length` Crockford digits, most significant first. */
function crockford(value: bigint, length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 1) {
    text = CROCKFORD[Number(value & 31n)]! + text;
    value >>= 5n;
  }
  return text;
}

/**
 * The ULID of an event for an endpoint: 10 characters of time (ms), 16 of the hash's first 80 bits.
 * @throws when the time is not a whole millisecond count a ULID can hold
 */
export function deliveryUlid(eventTimeMs: number, sourceId: string, webhookId: number): string {
  if (!Number.isSafeInteger(eventTimeMs) || eventTimeMs < 0 || eventTimeMs > MAX_TIME) {
    throw new Error('a delivery id needs the event time as whole milliseconds since the epoch');
  }
  const digest = createHash('sha256').update(`${sourceId}:${webhookId}`, 'utf8').digest();
  const random = BigInt(`0x${digest.subarray(0, 10).toString('hex')}`);
  return crockford(BigInt(eventTimeMs), 10) + crockford(random, 16);
}

/** The delivery id of an event (its time, ISO 8601, and what caused it) for one endpoint. */
export function deliveryId(webhookId: number, eventTimestamp: string, sourceId: string): string {
  return `msg_${webhookId}_${deliveryUlid(Date.parse(eventTimestamp), sourceId, webhookId)}`;
}

/** A delivery id: `msg_`, the endpoint's id, `_`, a ULID. */
const DELIVERY_ID = /^msg_([1-9][0-9]{0,15})_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The endpoint a delivery id names (a retry by id finds its delivery with no index); undefined when `id` is not a delivery id. */
export function webhookOfDelivery(id: string): number | undefined {
  const match = DELIVERY_ID.exec(id);
  if (!match) return undefined;
  const webhookId = Number(match[1]);
  return Number.isSafeInteger(webhookId) ? webhookId : undefined;
}

/**
 * The smallest and largest delivery id an endpoint's event of `[sinceMs, untilMs)` can have: its
 * deliveries of that window are the sort keys between them (both inclusive), in event-time order.
 */
export function deliveryIdBounds(webhookId: number, sinceMs: number, untilMs: number): { readonly from: string; readonly to: string } {
  const at = (ms: number) => crockford(BigInt(Math.min(Math.max(ms, 0), MAX_TIME)), 10);
  return { from: `msg_${webhookId}_${at(sinceMs)}${'0'.repeat(16)}`, to: `msg_${webhookId}_${at(untilMs - 1)}${'Z'.repeat(16)}` };
}

/** When the event of a delivery id happened (its ULID's time, epoch ms); undefined when `id` is not a delivery id. */
export function eventTimeOf(id: string): number | undefined {
  if (webhookOfDelivery(id) === undefined) return undefined;
  const ulid = id.slice(id.lastIndexOf('_') + 1);
  let ms = 0;
  for (const digit of ulid.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(digit);
  return ms;
}
