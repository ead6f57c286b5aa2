/**
 * The functions' environments in the synthesized stack, against THE env schema and the parts that
 * read each variable (`shared/platform/env-parts.ts`): each function gets exactly the variables its code
 * reads, so a secret or setting reaches only the functions that use it.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { functionAccess, functionNames } from '../../infra/permissions.js';
import { envParts, functionEnvVars } from '../../shared/platform/env-parts.js';
import { EnvSchema } from '../../shared/platform/env.js';
import { routes } from '../../shared/routes.js';
import { tables, type TableName } from '../../shared/tables.js';
import { lookups, logicalId, synthesize, TEST_IDENTITY, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const tableNames = Object.keys(tables) as TableName[];
const fnNames = functionNames(routes);
const { tableId, fnResource } = lookups(() => s);
/** What the Parameters and Secrets extension layer adds to every environment (its own settings). */
const EXTENSION_SETTINGS = /^(PARAMETERS_SECRETS_EXTENSION|SECRETS_MANAGER|SSM_PARAMETER_STORE)_/;
/** A function's variables of THE env schema (not the extension's). */
const variablesOf = (name: string) =>
  Object.fromEntries(
    Object.entries(fnResource(name).Properties.Environment.Variables as Record<string, unknown>).filter(
      ([k]) => !EXTENSION_SETTINGS.test(k),
    ),
  );

describe('function environments', () => {
  test.each(fnNames.map((n) => [n] as const))('%s: exactly the variables its parts read, and they parse with the env schema', (name) => {
    const all = fnResource(name).Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(all).filter((k) => !(k in EnvSchema.shape) && !EXTENSION_SETTINGS.test(k))).toEqual([]);
    const variables = variablesOf(name);
    const reads: readonly string[] = functionEnvVars(routes, name);
    expect(Object.keys(variables).filter((k) => !reads.includes(k))).toEqual([]);
    for (const t of tableNames) {
      if (reads.includes(tables[t].envVar)) expect(variables[tables[t].envVar]).toEqual({ Ref: tableId(t) });
      else expect(variables).not.toHaveProperty(tables[t].envVar);
    }
    // Every table its role may touch is named in its environment.
    for (const t of Object.keys(functionAccess(routes, name)) as TableName[]) expect(variables).toHaveProperty(tables[t].envVar);
    expect(variables).toMatchObject({ ORIGIN_VERIFY_SECRET_ARN: { Ref: logicalId(s.stack, s.stack.originSecret) } });
    if (reads.includes('JWT_ISSUER')) {
      expect(variables).toMatchObject({
        JWT_ISSUER: TEST_IDENTITY.issuer,
        JWT_AUDIENCE: TEST_IDENTITY.audience,
        JWT_JWKS_URL: TEST_IDENTITY.jwksUrl,
      });
    }
    // Local-only settings never reach AWS.
    expect(variables).not.toHaveProperty('DYNAMODB_ENDPOINT');
    expect(variables).not.toHaveProperty('JWT_JWKS');
    // Deploy-time values (Ref, GetAtt, dynamic references) stand in as plausible strings.
    const resolved = Object.fromEntries(
      Object.entries(variables).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : k.endsWith('_URL') ? 'https://resolved.example' : 'x'.repeat(64),
      ]),
    );
    expect(() => EnvSchema.parse(resolved)).not.toThrow();
  });

  test('secrets and settings only where they are read', () => {
    const having = (variable: string) => fnNames.filter((name) => variable in variablesOf(name));
    const functionOf = (operation: string) => routes.find((r) => r.operation === operation)!.function;
    const bearer = fnNames.filter((name) => routes.some((r) => r.function === name && r.auth === 'bearer'));
    // Secrets by name only, where they are read; never their values (read at cold start: shared/platform/secrets.ts).
    expect(having('PLAY_COOKIE_SECRET_ARN')).toEqual([functionOf('play-session')]);
    expect(having('SESSION_ID_KEY_ARN')).toEqual([functionOf('consume-session'), functionOf('play-session')]);
    expect(having('PLAY_COOKIE_SECRET')).toEqual([]);
    expect(having('SESSION_ID_KEY')).toEqual([]);
    expect(variablesOf(functionOf('play-session'))).toMatchObject({
      PLAY_COOKIE_SECRET_ARN: { Ref: logicalId(s.stack, s.stack.playCookieSecret) },
    });
    expect(JSON.stringify(s.json.Resources)).not.toMatch(/resolve:secretsmanager:[^}]*(PlayCookie|SessionIdKey)/);
    for (const variable of ['JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS_URL']) expect(having(variable)).toEqual(bearer);
    // The members' game and stream operations answer play links too.
    expect(having('PUBLIC_BASE_URL')).toEqual([
      functionOf('mcp'),
      functionOf('list-games'),
      functionOf('update-game'),
      functionOf('update-stream'),
      functionOf('play-session'),
    ]);
    expect(having('IDEMPOTENCY_TABLE')).toEqual([functionOf('create-session'), functionOf('mcp')]);
    for (const variable of ['ORIGIN_VERIFY_SECRET_ARN', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_LOG_LEVEL']) {
      expect(having(variable)).toEqual(fnNames);
    }
    expect(Object.keys(variablesOf(functionOf('openapi'))).sort()).toEqual([...envParts.http].sort());
  });
});
