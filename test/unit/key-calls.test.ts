/**
 * KeyCalls' credential and authentication (unit, in-memory stores): a key is well-formed `dpk_` and
 * 40 lower-case hex or Unauthenticated; it authenticates while active, unexpired and of a Business
 * or Enterprise org. Metering: key-calls-meter.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import { TierRequired, Unauthenticated } from '../../shared/platform/errors.js';
import { hashApiKey, keyCredential } from '../../shared/keys/credential.js';
import { NOW, RAW, setup } from '../support/key-calls.js';

describe('keyCredential', () => {
  test('a well-formed key becomes its SHA-256 and its 8-character prefix', () => {
    expect(keyCredential(RAW)).toEqual({ keyHash: hashApiKey(RAW), keyPrefix: 'dpk_0123' });
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test.each([undefined, ''])('a missing key (%p) is Unauthenticated with its own message', (raw) => {
    expect(() => keyCredential(raw)).toThrow(new Unauthenticated('Missing API key (x-api-key header)'));
  });

  test.each([
    ['39 hex', `dpk_${'a'.repeat(39)}`],
    ['41 hex', `dpk_${'a'.repeat(41)}`],
    ['upper case', `dpk_${'A'.repeat(40)}`],
    ['non-hex', `dpk_${'z'.repeat(40)}`],
    ['wrong prefix', `dpx_${'a'.repeat(40)}`],
    ['no prefix', 'a'.repeat(44)],
    ['leading space', ` dpk_${'a'.repeat(40)}`],
    ['trailing newline', `dpk_${'a'.repeat(40)}\n`],
  ])('a malformed key (%s) is Unauthenticated', (_name, raw) => {
    expect(() => keyCredential(raw)).toThrow(new Unauthenticated('Invalid API key'));
  });
});

describe('KeyCalls.authenticate', () => {
  test('an active, unexpired key of a business org authenticates', async () => {
    const { keyCalls, key } = setup();
    await expect(keyCalls.authenticate(keyCredential(RAW))).resolves.toEqual(key);
  });

  test('an unknown key', async () => {
    const { keyCalls } = setup();
    await expect(keyCalls.authenticate(keyCredential(`dpk_${'f'.repeat(40)}`))).rejects.toThrow(new Unauthenticated('Invalid API key'));
  });

  test('a revoked key', async () => {
    const { keyCalls, keys, key } = setup();
    keys.keys.set(key.key_hash, { ...key, is_active: false });
    await expect(keyCalls.authenticate(keyCredential(RAW))).rejects.toThrow(new Unauthenticated('API key has been revoked'));
  });

  test('a key expires exactly at its expires_at', async () => {
    const { keyCalls, clock } = setup({ expires_at: new Date(NOW + 1).toISOString() });
    await expect(keyCalls.authenticate(keyCredential(RAW))).resolves.toBeDefined();
    clock.ms = NOW + 1;
    await expect(keyCalls.authenticate(keyCredential(RAW))).rejects.toThrow(new Unauthenticated('API key has expired'));
  });

  test.each(['free', 'pro'] as const)('a %s-tier key: TierRequired', async (tier) => {
    const { keyCalls } = setup({}, tier);
    await expect(keyCalls.authenticate(keyCredential(RAW))).rejects.toThrow(TierRequired);
  });

  test('an enterprise key authenticates', async () => {
    const { keyCalls } = setup({}, 'enterprise');
    await expect(keyCalls.authenticate(keyCredential(RAW))).resolves.toBeDefined();
  });
});
