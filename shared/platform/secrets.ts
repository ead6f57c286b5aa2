/**
 * The secrets a function reads from Secrets Manager, each through the AWS Parameters and Secrets
 * Lambda extension, and the two middlewares every bundle runs on them. One file, because both
 * read the same way and the second reads through the first's client.
 *
 * The origin guard. In AWS the functions sit behind API Gateway, whose execute-api endpoint is public;
 * the only intended way in is the CloudFront distribution, which adds a secret header to every
 * request it forwards. When `ORIGIN_VERIFY_SECRET_ARN` is set, a request without that header (someone
 * calling the execute-api endpoint directly, skipping the edge) is answered 403 before anything else
 * runs. Locally the variable is unset and the guard is off.
 *
 * The service's own secrets (the play cookie's HMAC key, the session-id permutation's key) where
 * they are used. In AWS a function's environment names the secret (`…_ARN`), never its value: the
 * value is read from Secrets Manager at the container's first request ({@link loadSecrets}, through
 * the Parameters and Secrets extension) and kept for the container's life, and only the functions
 * whose code reads a secret may read it (IAM). Locally and in tests the value itself is in the
 * environment and no AWS call is made. One seam, {@link SecretSource}, for tests of the AWS path.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Forbidden } from './errors.js';
import type { CallContext } from './call.js';
import { env, type Env } from './env.js';
import { viewerAddress } from './http/answers.js';

// --- The origin guard

/** The header CloudFront adds to origin requests (it overwrites a viewer's header of the same name). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/** Reads the accepted header values of a secret: the current one and, during a rotation, the previous. */
export type SecretValuesLoader = (secretId: string) => Promise<readonly string[]>;

export interface OriginVerifyOptions {
  /** The secret's id (ARN); read from the environment by default. */
  readonly secretId?: () => string | undefined;
  /** How the values are read; the Lambda Parameters and Secrets extension by default. */
  readonly load?: SecretValuesLoader;
  readonly now?: () => number;
}

/** Values are kept this long, so a warm container reads the secret at most once per period. */
const CACHE_MS = 5 * 60_000;
/** A mismatching header re-reads the secret (a rotation in progress), but not more often than this. */
const RELOAD_ON_MISMATCH_MS = 30_000;

/**
 * The guard as a middy middleware; put it right after the response middleware so a 403 is logged.
 * A request it passes came through CloudFront, so the viewer's address CloudFront reports replaces
 * the socket's (CloudFront's edge) as the call's `sourceIp`; with the guard off (locally) the socket's stays.
 */
export function originVerify<C extends Context & { call?: CallContext }>(
  options: OriginVerifyOptions = {},
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, C> {
  const secretId = options.secretId ?? (() => env().ORIGIN_VERIFY_SECRET_ARN);
  const now = options.now ?? Date.now;
  const load = options.load ?? ((id: string) => loadFromExtension(id, now));
  let cache: { readonly values: readonly Buffer[]; readonly at: number } | undefined;

  const accepted = async (id: string, reload: boolean): Promise<readonly Buffer[]> => {
    const age = cache ? now() - cache.at : Infinity;
    if (!cache || age > CACHE_MS || (reload && age > RELOAD_ON_MISMATCH_MS)) {
      cache = { values: (await load(id)).map(digest), at: now() };
    }
    return cache.values;
  };

  return {
    before: async ({ event, context }) => {
      const id = secretId();
      if (!id) return;
      const presented = event.headers?.[ORIGIN_VERIFY_HEADER];
      if (!presented) throw denied();
      const hash = digest(presented);
      const matches = (values: readonly Buffer[]) => values.some((v) => timingSafeEqual(v, hash));
      if (!matches(await accepted(id, false)) && !matches(await accepted(id, true))) throw denied();
      const viewer = viewerAddress(event.headers);
      if (viewer && context.call) context.call = { ...context.call, sourceIp: viewer };
    },
  };
}

function denied(): Forbidden {
  return new Forbidden('Requests must go through the service’s public endpoint');
}

/** Fixed-length digests, so the comparison is constant-time whatever the lengths. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * How long after a rotation the previous value is still accepted: CloudFront needs minutes to send
 * the new value from every edge (the rotation updates the distribution's origin header); after
 * this, a leaked old value opens nothing. A warm container may keep it up to its cache period more.
 */
export const PREVIOUS_ACCEPTED_MS = 60 * 60_000;

/**
 * Read the secret through the AWS Parameters and Secrets Lambda extension (a layer the stack adds):
 * a localhost HTTP call that needs no SDK client in the bundle and is cached by the extension. The
 * previous version is accepted too, so rotating the secret does not refuse edges that still send
 * it, but only for {@link PREVIOUS_ACCEPTED_MS} after the current version was created.
 */
export async function loadFromExtension(secretId: string, now: () => number = Date.now): Promise<readonly string[]> {
  const [current, previous] = await Promise.all([
    readStage(secretId, 'AWSCURRENT'),
    readStage(secretId, 'AWSPREVIOUS').catch(() => undefined),
  ]);
  if (current === undefined) throw new Error(`origin secret ${secretId} has no current value`);
  // A current version of unknown age: the previous one is not accepted (fail closed).
  const rotatedAt = current.createdAt ?? -Infinity;
  const withinWindow = now() - rotatedAt <= PREVIOUS_ACCEPTED_MS;
  return previous === undefined || !withinWindow ? [current.value] : [current.value, previous.value];
}

/**
 * A secret's current value, read through the Parameters and Secrets extension (the service's own
 * secrets, below). @throws when it cannot be read
 */
async function readCurrentSecret(secretId: string): Promise<string> {
  const current = await readStage(secretId, 'AWSCURRENT');
  if (current === undefined) throw new Error(`secret ${secretId} has no current value`);
  return current.value;
}

/** A version of the secret: its value, and when it was created (epoch ms) if the answer says. */
interface SecretVersion {
  readonly value: string;
  readonly createdAt: number | undefined;
}

async function readStage(secretId: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<SecretVersion | undefined> {
  // Runtime-provided variables (the extension's port and the function's session token), not service
  // configuration, so they are read here rather than in the env schema.
  const port = process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? '2773';
  const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}&versionStage=${stage}`;
  const response = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' } });
  if (!response.ok) {
    if (stage === 'AWSPREVIOUS') return undefined;
    throw new Error(`reading secret failed: HTTP ${response.status}`);
  }
  const body = (await response.json()) as { SecretString?: string; CreatedDate?: number | string };
  return body.SecretString ? { value: body.SecretString, createdAt: epochMs(body.CreatedDate) } : undefined;
}

/** Secrets Manager's `CreatedDate` (epoch seconds in the API's JSON; an ISO string tolerated) in epoch ms. */
function epochMs(date: number | string | undefined): number | undefined {
  if (typeof date === 'number') return date * 1000;
  const parsed = typeof date === 'string' ? Date.parse(date) : NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}

// --- The service's own secrets

/** A secret the code reads, by the variable that carries its value locally. */
export type SecretName = 'PLAY_COOKIE_SECRET' | 'SESSION_ID_KEY' | 'WEBHOOK_SECRET_KEY';

/** The variable naming each secret's Secrets Manager id in AWS. */
const SECRET_IDS = {
  PLAY_COOKIE_SECRET: 'PLAY_COOKIE_SECRET_ARN',
  SESSION_ID_KEY: 'SESSION_ID_KEY_ARN',
  WEBHOOK_SECRET_KEY: 'WEBHOOK_SECRET_KEY_ARN',
} as const;

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
