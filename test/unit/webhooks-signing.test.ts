/**
 * Standard Webhooks signing, checked by the stock `standardwebhooks` library as a partner runs it:
 * unedited, with its own secret parsing and its own timestamp tolerance (5 minutes of its clock).
 */
import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  ROTATION_OVERLAP_MS,
  deliveryHeaders,
  generateSecret,
  isSecret,
  rotatedSecrets,
  secretKey,
  secretsInForce,
  sign,
} from '../../shared/webhooks/signing.js';

/** Now, as the library's tolerance window reads it. */
const nowSeconds = () => Math.floor(Date.now() / 1000);
const BODY = JSON.stringify({ type: 'webhook.test', timestamp: '2026-11-23T10:00:00.000Z', data: { webhook_id: 7 } });
const ID = 'msg_2Zx8VbqK1fR0';

/** What a receiver holding `secret` concludes: the parsed body, or the library's error. */
function verify(secret: string, body: string, headers: Record<string, string>): unknown {
  return new Webhook(secret).verify(body, headers);
}

describe('secrets', () => {
  test('a new secret is whsec_ and the base64 of 32 random bytes, different each time', () => {
    const secrets = Array.from({ length: 20 }, generateSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(secretKey(secret)).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  test('a secret parses to the bytes it encodes: 24 to 64 of them, with the prefix, canonical base64', () => {
    const bytes = (n: number) => Buffer.alloc(n, 0xa5);
    expect(secretKey(`whsec_${bytes(24).toString('base64')}`)).toEqual(bytes(24));
    expect(secretKey(`whsec_${bytes(64).toString('base64')}`)).toEqual(bytes(64));
    const refused = [
      `whsec_${bytes(23).toString('base64')}`,
      `whsec_${bytes(65).toString('base64')}`,
      bytes(32).toString('base64'),
      `WHSEC_${bytes(32).toString('base64')}`,
      `whsec_${bytes(32).toString('base64url')}`,
      `whsec_${bytes(32).toString('base64').replace('=', '')}`,
      `whsec_ ${bytes(32).toString('base64')}`,
      'whsec_',
      '',
    ];
    for (const secret of refused) {
      expect(isSecret(secret)).toBe(false);
      expect(() => secretKey(secret)).toThrow('not a webhook secret');
    }
  });

  test('a refused secret is not repeated in the error (messages reach the logs)', () => {
    const almost = `whsec_${Buffer.alloc(16, 1).toString('base64')}`;
    expect(() => secretKey(almost)).toThrow(expect.objectContaining({ message: expect.not.stringContaining(almost.slice(6)) }));
  });
});

describe('sign', () => {
  test('v1, then the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the decoded secret', () => {
    const secret = generateSecret();
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${ID}.1700000000.${BODY}`)
      .digest('base64');
    expect(sign(secret, ID, 1_700_000_000, BODY)).toBe(`v1,${expected}`);
  });

  test('the library computes the same signature (a vector from its own signer)', () => {
    const secret = generateSecret();
    expect(sign(secret, ID, 1_700_000_000, BODY)).toBe(new Webhook(secret).sign(ID, new Date(1_700_000_000_000), BODY));
  });

  test('non-ASCII bodies are signed as their UTF-8 bytes, as the library reads them', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ data: { external_ref: 'Zürich — 東京 🎮' } });
    const headers = deliveryHeaders({ id: ID, timestampSeconds: nowSeconds(), body, secrets: [secret] });
    expect(verify(secret, body, { ...headers })).toEqual(JSON.parse(body));
  });

  test('ids that would make the signed content ambiguous or break the header are refused', () => {
    const secret = generateSecret();
    for (const id of ['', 'a.b', 'a b', 'a,b', 'é', 'x'.repeat(257), 'a\nb']) {
      expect(() => sign(secret, id, 1, BODY)).toThrow('webhook id');
    }
    for (const seconds of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => sign(secret, ID, seconds, BODY)).toThrow('webhook timestamp');
    }
  });
});

describe('delivery headers, verified by the standardwebhooks library', () => {
  test('one secret: the three headers, and the library verifies them', () => {
    const secret = generateSecret();
    const timestampSeconds = nowSeconds();
    const headers = deliveryHeaders({ id: ID, timestampSeconds, body: BODY, secrets: [secret] });
    expect(headers).toEqual({
      'webhook-id': ID,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': sign(secret, ID, timestampSeconds, BODY),
    });
    expect(verify(secret, BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  test('a tampered body, id or timestamp fails; so does another secret', () => {
    const secret = generateSecret();
    const timestampSeconds = nowSeconds();
    const headers = { ...deliveryHeaders({ id: ID, timestampSeconds, body: BODY, secrets: [secret] }) };
    expect(() => verify(secret, BODY.replace('7', '8'), headers)).toThrow('No matching signature found');
    expect(() => verify(secret, `${BODY} `, headers)).toThrow('No matching signature found');
    expect(() => verify(secret, BODY, { ...headers, 'webhook-id': `${ID}x` })).toThrow('No matching signature found');
    expect(() => verify(secret, BODY, { ...headers, 'webhook-timestamp': String(timestampSeconds - 1) })).toThrow(
      'No matching signature found',
    );
    expect(() => verify(generateSecret(), BODY, headers)).toThrow('No matching signature found');
  });

  test('during a rotation two signatures, space-separated: each secret alone verifies, a third does not', () => {
    const before = { secret: generateSecret() };
    const rotatedAt = Date.now();
    const after = rotatedSecrets(before, rotatedAt);
    const secrets = secretsInForce(after, rotatedAt + 1000);
    expect(secrets).toEqual([after.secret, before.secret]);

    const headers = { ...deliveryHeaders({ id: ID, timestampSeconds: nowSeconds(), body: BODY, secrets }) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(before.secret, BODY, headers)).toEqual(JSON.parse(BODY));
    expect(verify(after.secret, BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => verify(generateSecret(), BODY, headers)).toThrow('No matching signature found');
    expect(() => verify(before.secret, BODY.replace('7', '8'), headers)).toThrow('No matching signature found');
    expect(() => verify(after.secret, BODY.replace('7', '8'), headers)).toThrow('No matching signature found');
  });

  test('no secret: nothing is signed', () => {
    expect(() => deliveryHeaders({ id: ID, timestampSeconds: nowSeconds(), body: BODY, secrets: [] })).toThrow('at least one secret');
  });
});

describe('rotation', () => {
  const ROTATED_AT = Date.UTC(2026, 10, 23, 10);

  test('the old secret signs beside the new one for 24 hours, then only the new one', () => {
    const old = generateSecret();
    const next = generateSecret();
    const rotated = rotatedSecrets({ secret: old }, ROTATED_AT, next);
    expect(rotated).toEqual({ secret: next, previous_secret: old, previous_secret_until: '2026-11-24T10:00:00.000Z' });
    expect(secretsInForce(rotated, ROTATED_AT)).toEqual([next, old]);
    expect(secretsInForce(rotated, ROTATED_AT + ROTATION_OVERLAP_MS - 1)).toEqual([next, old]);
    expect(secretsInForce(rotated, ROTATED_AT + ROTATION_OVERLAP_MS)).toEqual([next]);
  });

  test('never rotated: one secret', () => {
    const secret = generateSecret();
    expect(secretsInForce({ secret }, ROTATED_AT)).toEqual([secret]);
    expect(secretsInForce({ secret, previous_secret: null, previous_secret_until: null }, ROTATED_AT)).toEqual([secret]);
  });

  test('a second rotation within the overlap keeps two secrets in force: the newest two', () => {
    const [first, second, third] = [generateSecret(), generateSecret(), generateSecret()];
    const once = rotatedSecrets({ secret: first }, ROTATED_AT, second);
    const twice = rotatedSecrets(once, ROTATED_AT + 60_000, third);
    expect(secretsInForce(twice, ROTATED_AT + 120_000)).toEqual([third, second]);
  });

  test('a malformed new secret is refused before it replaces anything', () => {
    expect(() => rotatedSecrets({ secret: generateSecret() }, ROTATED_AT, 'whsec_short')).toThrow('not a webhook secret');
  });
});
