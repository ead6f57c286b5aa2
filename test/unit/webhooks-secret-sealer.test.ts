/**
 * The sealing of webhook endpoint secrets (shared/webhooks/secret-sealer.ts): AES-256-GCM under the
 * service's key, bound to the endpoint; nothing of the secret in the sealed form or in any refusal.
 */
import { describe, expect, test } from '@jest/globals';
import { AesGcmSealer, sealingContext } from '../../shared/webhooks/secret-sealer.js';
import { generateSecret } from '../../shared/webhooks/signing.js';

const KEY = 'k'.repeat(43);
const sealer = new AesGcmSealer(() => KEY);
const context = sealingContext(1, 7);

describe('AesGcmSealer', () => {
  test('opens what it sealed; the sealed form holds nothing of the secret and differs each time', () => {
    const secret = generateSecret();
    const a = sealer.seal(secret, context);
    const b = sealer.seal(secret, context);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain('whsec_');
    expect(a).not.toContain(secret.slice(6, 20));
    expect(sealer.open(a, context)).toBe(secret);
    expect(sealer.open(b, context)).toBe(secret);
  });

  test('refuses another key, another endpoint, a changed value, or no sealed value at all, without the secret in the message', () => {
    const secret = generateSecret();
    const sealed = sealer.seal(secret, context);
    const [version, iv, data, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = `${version}.${iv}.${data.slice(0, -2)}${data.endsWith('A') ? 'B' : 'A'}${data.slice(-1)}.${tag}`;
    const attempts = [
      () => new AesGcmSealer(() => 'x'.repeat(43)).open(sealed, context),
      () => sealer.open(sealed, sealingContext(1, 8)),
      () => sealer.open(sealed, sealingContext(2, 7)),
      () => sealer.open(flipped, context),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow('a sealed webhook secret did not open');
      try {
        attempt();
      } catch (error) {
        expect(String((error as Error).message)).not.toContain(secret);
      }
    }
    for (const bad of ['', secret, 'v2.a.b.c', `${sealed}.extra`, 'v1.short.x.y']) {
      expect(() => sealer.open(bad, context)).toThrow('not a sealed webhook secret');
    }
  });

  test('reads its key only when first used', () => {
    let reads = 0;
    const lazy = new AesGcmSealer(() => {
      reads += 1;
      return KEY;
    });
    expect(reads).toBe(0);
    const sealed = lazy.seal('whsec_x', context);
    lazy.open(sealed, context);
    expect(reads).toBe(1);
    expect(sealer.open(sealed, context)).toBe('whsec_x');
  });
});
