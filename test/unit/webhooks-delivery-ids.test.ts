/**
 * Delivery ids (`msg_<webhook_id>_<ulid>`): the ULID's time is the event's, its 80 random bits are
 * the first 80 bits of SHA-256(`<source_id>:<webhook_id>`) in Crockford base32, so the same source
 * makes the same id for an endpoint, and an endpoint's ids sort by event time.
 */
import { describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { deliveryId, deliveryUlid } from '../../shared/webhooks/delivery-ids.js';
import { sign } from '../../shared/webhooks/signing.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Crockford base32 of a bit string, 5 bits a character (an encoder written another way than the module's). */
const base32 = (bits: string) => (bits.match(/.{5}/g) ?? []).map((chunk) => CROCKFORD[parseInt(chunk, 2)]).join('');

/** The ULID decoded: its time (ms) and its 80 random bits as hex. */
function decode(ulid: string): { timeMs: number; randomHex: string } {
  const bits = [...ulid].map((c) => CROCKFORD.indexOf(c).toString(2).padStart(5, '0')).join('');
  return {
    timeMs: parseInt(bits.slice(2, 50), 2),
    randomHex: BigInt(`0b${bits.slice(50)}`)
      .toString(16)
      .padStart(20, '0'),
  };
}

describe('delivery ids', () => {
  const at = '2025-03-04T05:06:07.089Z';

  test('msg_<webhook_id>_<26 Crockford characters>, usable as a webhook-id', () => {
    const id = deliveryId(12, at, 'stream-event-1');
    expect(id).toMatch(/^msg_12_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(() => sign(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, id, 1, '{}')).not.toThrow();
  });

  test('the time is the event time; the random part is the first 80 bits of sha256(source_id:webhook_id)', () => {
    const ulid = deliveryId(12, at, 'stream-event-1').slice('msg_12_'.length);
    const digest = createHash('sha256').update('stream-event-1:12').digest();
    expect(decode(ulid)).toEqual({ timeMs: Date.parse(at), randomHex: digest.subarray(0, 10).toString('hex') });
    const timeBits = Date.parse(at).toString(2).padStart(50, '0');
    const randomBits = [...digest.subarray(0, 10)].map((b) => b.toString(2).padStart(8, '0')).join('');
    expect(ulid).toBe(base32(timeBits) + base32(randomBits));
  });

  test('the same source and endpoint make the same id; another endpoint or source another one', () => {
    const id = deliveryId(12, at, 'src');
    expect(deliveryId(12, at, 'src')).toBe(id);
    expect(deliveryId(13, at, 'src').slice(-16)).not.toBe(id.slice(-16));
    expect(deliveryId(12, at, 'src2')).not.toBe(id);
  });

  test("an endpoint's ids sort by event time (newest first in a descending query)", () => {
    const times = [0, 1, 999, 1_000, 86_400_000, Date.parse(at), 2 ** 48 - 1];
    const ids = times.map((ms, i) => `msg_7_${deliveryUlid(ms, `s${i}`, 7)}`);
    expect([...ids].sort()).toEqual(ids);
  });

  test('a time a ULID cannot hold is refused', () => {
    expect(() => deliveryUlid(-1, 's', 1)).toThrow('whole milliseconds');
    expect(() => deliveryUlid(2 ** 48, 's', 1)).toThrow('whole milliseconds');
    expect(() => deliveryId(1, 'not a time', 's')).toThrow('whole milliseconds');
  });
});
