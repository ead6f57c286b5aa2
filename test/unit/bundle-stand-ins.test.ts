/**
 * The stand-ins the Lambda bundles alias in (infra/bundle/, infra/functions.ts): the environment
 * credentials provider behaves like the SDK's `fromEnv`, the `node:http` stand-in is Node's own
 * module, and the event-stream and MCP stand-ins refuse. (test/infra/bundle.test.ts proves every bundle still loads and answers with them.)
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import * as http from 'node:http';
import { defaultProvider } from '../../infra/bundle/env-credentials.js';
import standIn, { STATUS_CODES, request } from '../../infra/bundle/node-http.js';
import unusedByMcp, { object, zodToJsonSchema } from '../../infra/bundle/mcp-unused.js';
import { EventStreamSerde, eventStreamSerdeProvider } from '../../infra/bundle/no-event-streams.js';

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
  expect(() => eventStreamSerdeProvider()).toThrow(/no-event-streams/);
  expect(() => new EventStreamSerde()).toThrow(/no DynamoDB operation uses one/);
});

test('the MCP stand-in refuses loudly, whether constructed (Ajv) or called', () => {
  expect(() => new (unusedByMcp as unknown as new () => unknown)()).toThrow(/mcp-unused/);
  for (const fn of [unusedByMcp, object, zodToJsonSchema]) expect(() => fn()).toThrow(/never validates JSON Schemas/);
});
