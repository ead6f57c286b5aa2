/**
 * The stand-ins the Lambda bundles alias in (infra/bundle/, infra/functions.ts): the environment
 * credentials provider behaves like the SDK's `fromEnv`, the `node:http` stand-in is Node's own
 * module, the endpoint cache, SHA-256 and JMESPath stand-ins answer as the packages they replace
 * (for what the bundles use of them), and the event-stream and MCP stand-ins refuse. (test/infra/bundle.test.ts proves every bundle still loads and answers with them.)
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { EndpointCache as RealEndpointCache } from '@aws-sdk/endpoint-cache';
import { Sha256Node } from '@smithy/core/checksum';
import { createRequire } from 'node:module';
import * as http from 'node:http';
import { EndpointCache, PowertoolsFunctions, Sha256, defaultProvider, search } from '../../infra/bundle/stand-ins.js';
import standIn, { EventStreamSerde, STATUS_CODES, eventStreamSerdeProvider, request } from '../../infra/bundle/lazy-stand-ins.js';
import unusedByMcp, { object, zodToJsonSchema } from '../../infra/bundle/mcp-unused.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('environment credentials', () => {
  test('the execution role’s credentials, as Lambda puts them in the environment', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
    delete process.env.AWS_CREDENTIAL_EXPIRATION;
    expect(await defaultProvider({})()).toEqual({ accessKeyId: 'AKIA1', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  test('an expiry is passed on; no credentials is an error that names the variables', async () => {
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'AKIA1',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z',
    });
    expect((await defaultProvider()()).expiration).toEqual(new Date('2030-01-01T00:00:00Z'));
    delete process.env.AWS_ACCESS_KEY_ID;
    await expect(defaultProvider()()).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
  });
});

test('the node:http stand-in is Node’s module', () => {
  expect(STATUS_CODES).toBe(http.STATUS_CODES);
  expect(request).toBe(http.request);
  expect(standIn.Agent).toBe(http.Agent);
});

test('the event-stream stand-in refuses loudly, naming itself', () => {
  expect(() => eventStreamSerdeProvider()).toThrow(/event streams are not bundled/);
  expect(() => new EventStreamSerde()).toThrow(/no DynamoDB operation uses one/);
});

test('the MCP stand-in refuses loudly, whether constructed (Ajv) or called', () => {
  expect(() => new (unusedByMcp as unknown as new () => unknown)()).toThrow(/mcp-unused/);
  for (const fn of [unusedByMcp, object, zodToJsonSchema]) expect(() => fn()).toThrow(/never validates JSON Schemas/);
});

describe('the JMESPath stand-in evaluates the idempotency store’s two expressions as JMESPath does', () => {
  // The interpreter Powertools' idempotency utility imports (its own copy, under its node_modules).
  const idempotencyRequire = createRequire(createRequire(import.meta.url).resolve('@aws-lambda-powertools/idempotency'));
  const real = idempotencyRequire('@aws-lambda-powertools/jmespath') as { search: (expression: string, data: unknown) => unknown };
  // shared/keys/idempotency-store.ts: eventKeyJmesPath and payloadValidationJmesPath.
  const expressions = ['[namespace, scope, key]', 'payload'];
  const data: unknown[] = [
    { namespace: 'create-session', scope: 'ab12', key: 'k-1', payload: { game_id: 7, metadata: { a: [1, 2] } } },
    { namespace: 'mcp:create_session', scope: 'cd34', key: 'k-2' },
    { namespace: 'x', scope: '', key: 0, payload: false },
    { payload: null },
    {},
    null,
  ];
  test.each(expressions)('%s', (expression) => {
    for (const item of data) expect([item, search(expression, item)]).toEqual([item, real.search(expression, item)]);
  });
  test('any other expression is refused loudly, naming the stand-in', () => {
    for (const expression of ['payload.game_id', 'powertools_json(body)', '[a, b.c]', 'a || b']) {
      expect(() => search(expression, {})).toThrow('infra/bundle/stand-ins.ts');
    }
    expect(new PowertoolsFunctions()).toBeDefined();
  });
});

describe('the endpoint cache stand-in behaves as @aws-sdk/endpoint-cache', () => {
  /** What a cache answers along one script of calls (expiry times masked: they are the clock's). */
  function observe(cache: Pick<EndpointCache, 'set' | 'get' | 'getEndpoint' | 'has' | 'delete' | 'clear'>): unknown[] {
    const seen: unknown[] = [];
    const look = (key: string) => seen.push([key, cache.has(key), cache.getEndpoint(key), cache.get(key)?.map((e) => e.Address)]);
    cache.set('a', [{ Address: 'a.example', CachePeriodInMinutes: 1 }]);
    cache.set('b', [{ Address: 'b.example', CachePeriodInMinutes: 0 }]);
    seen.push(cache.has('b'));
    ['a', 'b', 'b'].forEach(look);
    cache.set('c', [{ Address: 'c.example', CachePeriodInMinutes: 1 }]);
    cache.get('a');
    cache.set('d', [{ Address: 'd.example', CachePeriodInMinutes: 1 }]);
    cache.set('e', [{ Address: 'e.example', CachePeriodInMinutes: 1 }]);
    ['a', 'b', 'c', 'd', 'e'].forEach(look);
    cache.delete('e');
    look('e');
    cache.clear();
    ['d', 'e'].forEach(look);
    return seen;
  }
  test('the same answers along set, get, getEndpoint, has, delete, clear, expiry and eviction (capacity 2)', () => {
    const theirs = observe(new RealEndpointCache(2));
    expect(observe(new EndpointCache(2))).toEqual(theirs);
    // The script sees expiry and eviction at all.
    expect(theirs).toContainEqual(['e', true, 'e.example', ['e.example']]);
    expect(theirs).toContainEqual(['b', false, undefined, undefined]);
  });
});

test('the SHA-256 stand-in is the SDK’s native Sha256 (hash and HMAC)', async () => {
  for (const secret of [undefined, 'key', new Uint8Array([1, 2, 3])]) {
    const [mine, theirs] = [new Sha256(secret), new Sha256Node(secret)];
    for (const hash of [mine, theirs]) {
      hash.update(new TextEncoder().encode('signed '));
      hash.update(new TextEncoder().encode('request'));
    }
    expect(await mine.digest()).toEqual(await theirs.digest());
  }
});
