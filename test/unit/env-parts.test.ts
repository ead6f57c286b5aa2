/**
 * Per-function environments (`shared/platform/env-parts.ts`): every variable of the env schema is read by
 * some part, every operation names its parts (its declaration's `parts`), and each function's parts
 * build on exactly the environment CDK gives that function, and not on less.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { adminServices } from '../../shared/keys/admin-services.js';
import { webhookAdminServices, webhookDeliveryAdminServices } from '../../shared/webhooks/admin-services.js';
import { webhookDeliveryServices } from '../../shared/webhooks/delivery-services.js';
import { eventServices } from '../../shared/webhooks/event-services.js';
import { catalogAdminServices } from '../../shared/catalog/admin-services.js';
import { orgsServices } from '../../shared/catalog/admin-services.js';
import { usageServices } from '../../shared/usage/admin-services.js';
import { overrideServices } from '../../shared/platform/services.js';
import { idempotencyServices } from '../../shared/keys/idempotency-store.js';
import { healthServices } from '../../shared/meta/health-services.js';
import { mcpServices } from '../../shared/mcp/services.js';
import { playServices } from '../../shared/play/services.js';
import { sessionServices, sessionTokens } from '../../shared/sessions/services.js';
import { envParts, functionEnvVars, functionParts, type EnvPart, type EnvVar } from '../../shared/platform/env-parts.js';
import { env, EnvSchema, resetEnv, tableEnv } from '../../shared/platform/env.js';
import { functionNames } from '../../infra/permissions.js';
import { routes } from '../../shared/routes.js';

/** A plausible value of every variable, as a deployment would set it. */
const SAMPLE: Record<EnvVar, string> = {
  ...tableEnv((_, t) => `sample-${t.id}`),
  TOKEN_RETENTION_DAYS: '7',
  AUDIT_RETENTION_DAYS: '90',
  DYNAMODB_PARTITION_WRITE_UNITS: '1000',
  JWT_ISSUER: 'https://issuer.example',
  JWT_AUDIENCE: 'game-session-token-service',
  JWT_MAX_LIFETIME_SECONDS: '86400',
  JWT_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
  JWT_JWKS: '{"keys":[]}',
  BUILD_VERSION: 'a1b2c3d',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  ORIGIN_VERIFY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:origin',
  MCP_ALLOWED_ORIGINS: 'https://agent.example',
  PUBLIC_BASE_URL: 'https://play.example',
  PLAY_COOKIE_SECRET: 'p'.repeat(64),
  SESSION_ID_KEY: 's'.repeat(64),
  PLAY_COOKIE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:play-cookie',
  SESSION_ID_KEY_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:session-id-key',
  WEBHOOK_SECRET_KEY: 'w'.repeat(64),
  WEBHOOK_SECRET_KEY_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook-secret-key',
  WEBHOOK_DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries',
  WEBHOOK_STREAM_FAILURES_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/stream-failures',
  POWERTOOLS_SERVICE_NAME: 'game-session-token-service',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
};

/** What builds each part (`sessionIds`: the consumption's part, whose key is read on the first consumption). */
const builders: Record<EnvPart, (() => unknown) | undefined> = {
  http: undefined,
  sessions: sessionServices,
  sessionIds: sessionTokens,
  idempotency: idempotencyServices,
  admin: adminServices,
  webhooks: webhookAdminServices,
  webhookDeliveries: webhookDeliveryAdminServices,
  webhookEvents: eventServices,
  webhookDelivery: webhookDeliveryServices,
  catalogAdmin: catalogAdminServices,
  usage: usageServices,
  orgs: orgsServices,
  mcp: mcpServices,
  play: playServices,
  health: healthServices,
};

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnv();
  overrideServices({});
});

/** Run with exactly these variables (and the region every Lambda has). */
function withEnvironment(vars: readonly EnvVar[]): void {
  process.env = { AWS_REGION: 'eu-west-1', ...Object.fromEntries(vars.map((name) => [name, SAMPLE[name]])) };
  resetEnv();
  overrideServices({});
}

describe('the parts', () => {
  test('every variable of the env schema is read by some part (else no function gets it)', () => {
    const read = new Set(Object.values(envParts).flat());
    expect(Object.keys(EnvSchema.shape).filter((name) => !read.has(name as EnvVar))).toEqual([]);
  });

  test('every operation of the routes table names its parts, and only parts there are', () => {
    expect(routes.filter((r) => !Array.isArray(r.parts)).map((r) => r.operation)).toEqual([]);
    expect(routes.flatMap((r) => r.parts).filter((part) => !(part in envParts))).toEqual([]);
  });
});

describe.each(functionNames(routes).map((fn) => [fn] as const))('%s', (fn) => {
  const vars = functionEnvVars(routes, fn);
  const parts = functionParts(routes, fn);

  test('its parts build on exactly its environment', () => {
    withEnvironment(vars);
    expect(() => EnvSchema.parse(process.env)).not.toThrow();
    for (const part of parts) expect(() => builders[part]?.()).not.toThrow();
    if (parts.includes('sessionIds')) expect(env().SESSION_ID_KEY).toBe(SAMPLE.SESSION_ID_KEY);
    if (parts.includes('play')) expect(env().PLAY_COOKIE_SECRET).toBe(SAMPLE.PLAY_COOKIE_SECRET);
  });

  test('and not without any one of its tables', () => {
    for (const missing of vars.filter((name) => name.endsWith('_TABLE'))) {
      withEnvironment(vars.filter((name) => name !== missing));
      expect(() => {
        for (const part of parts) builders[part]?.();
      }).toThrow(`${missing} is not set`);
    }
  });
});

/** The parts only workers build (no route names them): each builds on exactly its own variables, and not without one of its tables. */
const workerParts = (Object.keys(envParts) as EnvPart[]).filter(
  (part) => builders[part] && !routes.some((r) => (r.parts as readonly string[]).includes(part)),
);

describe.each(workerParts.map((part) => [part] as const))('worker part %s', (part) => {
  const vars = [...envParts.http, ...envParts[part]];

  test('builds on exactly its environment', () => {
    withEnvironment(vars);
    expect(() => builders[part]!()).not.toThrow();
  });

  test('and not without any one of its tables', () => {
    for (const missing of vars.filter((name) => name.endsWith('_TABLE'))) {
      withEnvironment(vars.filter((name) => name !== missing));
      expect(() => builders[part]!()).toThrow(`${missing} is not set`);
    }
  });
});

describe('where the secrets and settings go', () => {
  const having = (name: EnvVar) => functionNames(routes).filter((fn) => functionEnvVars(routes, fn).includes(name));
  const functionOf = (operation: string) => routes.find((r) => r.operation === operation)!.function;
  const bearer = functionNames(routes).filter((fn) => routes.some((r) => r.function === fn && r.auth === 'bearer'));

  test('the play cookie secret only to the play pages, the session-id key only where tokens are consumed', () => {
    expect(having('PLAY_COOKIE_SECRET')).toEqual([functionOf('play-session')]);
    // consume-session, and the play pages' function, whose script's play session consumes.
    expect(having('SESSION_ID_KEY')).toEqual([functionOf('consume-session'), functionOf('play-session')]);
  });

  test('the webhook secret key only to the webhook-management functions (the MCP server’s webhook tools among them)', () => {
    const webhookOps = ['mcp', 'list-webhooks', 'create-webhook', 'update-webhook', 'delete-webhook', 'rotate-webhook-secret'];
    expect(having('WEBHOOK_SECRET_KEY')).toEqual(webhookOps.map(functionOf));
  });

  test('the issuer settings exactly to the functions of bearer routes', () => {
    for (const name of ['JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS_URL', 'JWT_MAX_LIFETIME_SECONDS'] as const) {
      expect(having(name)).toEqual(bearer);
    }
  });

  test('every function logs and checks the origin; the OpenAPI document needs nothing else', () => {
    for (const name of envParts.http) expect(having(name)).toEqual(functionNames(routes));
    expect(functionEnvVars(routes, functionOf('openapi'))).toEqual([...envParts.http].sort());
  });
});
