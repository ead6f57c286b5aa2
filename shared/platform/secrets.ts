/**
 * The service's own secrets (the play cookie's HMAC key, the session-id permutation's key) where
 * they are used. In AWS a function's environment names the secret (`…_ARN`), never its value: the
 * value is read from Secrets Manager at the container's first request ({@link loadSecrets}, through
 * the Parameters and Secrets extension) and kept for the container's life, and only the functions
 * whose code reads a secret may read it (IAM). Locally and in tests the value itself is in the
 * environment and no AWS call is made. One seam, {@link SecretSource}, for tests of the AWS path.
 */
import type middy from '@middy/core';
import { env, type Env } from './env.js';
import { readCurrentSecret } from './http/origin-verify.js';

/** A secret the code reads, by the variable that carries its value locally. */
export type SecretName = 'PLAY_COOKIE_SECRET' | 'SESSION_ID_KEY';

/** The variable naming each secret's Secrets Manager id in AWS. */
const SECRET_IDS = { PLAY_COOKIE_SECRET: 'PLAY_COOKIE_SECRET_ARN', SESSION_ID_KEY: 'SESSION_ID_KEY_ARN' } as const;

/** Reads a secret's current value by its id. */
export type SecretSource = (secretId: string) => Promise<string>;

let source: SecretSource = readCurrentSecret;
const loaded = new Map<SecretName, string>();

/** Read secrets from elsewhere than the extension (tests of the AWS path); forgets what was read. */
export function useSecretSource(next: SecretSource): void {
  source = next;
  loaded.clear();
}

/**
 * Read the secrets this function's environment names and does not hold, once per container (a
 * failed read is tried again by the next request, which fails until it succeeds: 500, never a
 * request served without its secret).
 */
export async function loadSecrets(environment: Env): Promise<void> {
  const missing = (Object.keys(SECRET_IDS) as SecretName[]).filter(
    (name) => environment[name] === undefined && environment[SECRET_IDS[name]] !== undefined && !loaded.has(name),
  );
  await Promise.all(missing.map(async (name) => loaded.set(name, await source(environment[SECRET_IDS[name]]!))));
}

/**
 * A secret's value: the environment's (locally, in tests) or the one read at the container's first
 * request. @throws naming it, where the function has neither (it does not use that secret).
 */
export function secret(environment: Env, name: SecretName): string {
  const value = environment[name] ?? loaded.get(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

/** The bundles' middleware that has the function's secrets read before its operation runs. */
export function secretsLoaded<E, R, C extends object>(): middy.MiddlewareObj<E, R, Error, C> {
  return {
    before: async () => {
      await loadSecrets(env());
    },
  };
}
