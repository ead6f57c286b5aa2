/**
 * The service's secrets where they are used (`shared/platform/secrets.ts`): in AWS the environment names a
 * secret and its value is read once per container before the first operation runs; locally the
 * value itself is in the environment and nothing is read. The source is faked: no AWS here.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { EnvSchema } from '../../shared/platform/env.js';
import { loadSecrets, secret, useSecretSource } from '../../shared/platform/secrets.js';

const PLAY_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:play-cookie';
const VALUE = 'v'.repeat(64);
const parsed = (vars: Record<string, string>) => EnvSchema.parse(vars);

afterEach(() => useSecretSource(async () => 'unused'));

describe('secrets', () => {
  test('AWS: read by the ARN the environment names, once per container, before use', async () => {
    const reads: string[] = [];
    useSecretSource(async (id) => (reads.push(id), VALUE));
    const environment = parsed({ PLAY_COOKIE_SECRET_ARN: PLAY_ARN });
    expect(() => secret(environment, 'PLAY_COOKIE_SECRET')).toThrow(/PLAY_COOKIE_SECRET is not set/);
    await loadSecrets(environment);
    await loadSecrets(environment);
    expect(secret(environment, 'PLAY_COOKIE_SECRET')).toBe(VALUE);
    expect(reads).toEqual([PLAY_ARN]);
  });

  test('a failed read fails the request, and the next request reads again', async () => {
    let fail = true;
    useSecretSource(async () => {
      if (fail) throw new Error('extension not ready');
      return VALUE;
    });
    const environment = parsed({ PLAY_COOKIE_SECRET_ARN: PLAY_ARN });
    await expect(loadSecrets(environment)).rejects.toThrow(/not ready/);
    fail = false;
    await loadSecrets(environment);
    expect(secret(environment, 'PLAY_COOKIE_SECRET')).toBe(VALUE);
  });

  test('locally: the value in the environment, nothing read; a function without the secret reads none', async () => {
    const reads: string[] = [];
    useSecretSource(async (id) => (reads.push(id), VALUE));
    const local = parsed({ PLAY_COOKIE_SECRET: 'l'.repeat(32), PLAY_COOKIE_SECRET_ARN: PLAY_ARN });
    await loadSecrets(local);
    expect(secret(local, 'PLAY_COOKIE_SECRET')).toBe('l'.repeat(32));
    await loadSecrets(parsed({}));
    expect(reads).toEqual([]);
    expect(() => secret(parsed({}), 'SESSION_ID_KEY')).toThrow(/SESSION_ID_KEY is not set/);
  });
});
