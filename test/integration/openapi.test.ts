/**
 * The OpenAPI 3.1 document: generated from the routes table and the zod schemas, served at
 * GET /api/openapi.json, and committed as docs/openapi.json (stale file: run `npm run openapi`).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE, openApiFileText } from '../../infra/openapi.js';
import { API_PATH, originPath } from '../../shared/platform/route.js';
import { errorTable } from '../../shared/platform/errors.js';
import { routes } from '../../shared/routes.js';
import { CreateKeyBody } from '../../shared/keys/schemas.js';
import { buildDocument } from '../../infra/openapi-document.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const document = buildDocument() as any;

describe('OpenAPI document', () => {
  test('docs/openapi.json is current (if not: npm run openapi)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiFileText(buildDocument()));
  });

  test('is served at GET /api/openapi.json without credential or envelope', async () => {
    const res = await stack.request('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('1.0.0');
  });

  test('documents every route of the routes table under its public path and method, once', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, any>).map(([method, op]) => ({ path, method: method.toUpperCase(), id: op.operationId, op })),
    );
    expect(operations.map((o) => o.id).sort()).toEqual(routes.map((r) => r.operation).sort());
    for (const route of routes) {
      const found = operations.find((o) => o.id === route.operation)!;
      expect(found.method).toBe(route.method);
      // An `?action=` operation at its own path (no query in an OpenAPI path); the `?action=` form in its description.
      expect(found.path).toBe('action' in route && route.action ? originPath(route) : route.path);
      if ('action' in route && route.action) {
        expect(found.op.description).toContain(`${route.method} ${API_PATH}?action=${route.action}`);
        expect(found.op.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'action' }));
      }
      const security = found.op.security ?? [];
      expect(security).toEqual(route.auth === 'none' ? [] : [{ [route.auth]: [] }]);
    }
  });

  test('the key-management schemas are the validating zod schemas, bounds included', () => {
    // Inline in its operation (generators take a component's defaulted fields as required).
    const create = document.paths['/api/org-api-keys'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['org_id', 'name']);
    expect(create.properties.name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(create.properties.rate_limit_per_minute).toMatchObject({ default: 60 });
    expect(create.properties.rate_limit_per_minute.anyOf[0]).toMatchObject({ minimum: 1, maximum: 100_000 });
    expect(create.properties.rate_limit_per_day.anyOf[0]).toMatchObject({ minimum: 1, maximum: 100_000_000 });
    expect(create.properties.allowed_game_ids.anyOf[0]).toMatchObject({ maxItems: 1000 });
    expect(document.components.schemas.McpScope.enum).toContain('mcp:sessions:write');
    // The same object validates requests: a bound documented is a bound enforced.
    expect(CreateKeyBody.safeParse({ org_id: 1, name: 'x', rate_limit_per_minute: 100_001 }).success).toBe(false);
    expect(Object.keys(document.components.schemas.ApiKey.properties)).not.toContain('key_hash');
    expect(document.components.schemas.CreatedApiKey.required).toContain('key');
  });

  test('generators can use it: servers, security on every operation, a 4xx on every operation, every schema typed', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '{base_url}' })]);
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      expect(path).not.toContain('?');
      for (const [method, op] of Object.entries(item)) {
        expect([path, method, Array.isArray(op.security)]).toEqual([path, method, true]);
        expect([path, method, Object.keys(op.responses).some((status) => /^4\d\d$/.test(status))]).toEqual([path, method, true]);
      }
    }
    expect(document.components.schemas.CreatedSession.properties.token).toMatchObject({ type: 'string', format: 'uuid' });
    const untyped: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      if (/\/(schema|properties\/[^/]+|items|anyOf\/\d+|schemas\/[^/]+)$/.test(at)) {
        const keys = Object.keys(node);
        if (!['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'const', 'enum'].some((k) => keys.includes(k))) untyped.push(at);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(document, '');
    expect(untyped).toEqual([]);
  });

  test('describes the error object: code (every code of the table), param, request_id (optional: the edge firewall’s 429 has none)', () => {
    const error = document.components.schemas.ErrorResponse;
    expect(error.required.sort()).toEqual(['code', 'error', 'success']);
    expect(error.properties.request_id).toMatchObject({ type: 'string', description: expect.stringContaining('edge firewall') });
    expect(error.properties.code.enum.sort()).toEqual(
      Object.values(errorTable)
        .map(([, code]) => code)
        .sort(),
    );
    expect(error.properties.param).toMatchObject({ type: 'string' });
  });

  test('Redocly lint with its recommended rules: no error, no warning', () => {
    const cli = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
    const run = spawnSync(process.execPath, [cli, 'lint', '--format', 'json', OPENAPI_FILE], { encoding: 'utf8', timeout: 120_000 });
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect([report.totals, report.problems]).toEqual([{ errors: 0, warnings: 0, ignored: 0 }, []]);
  });

  test('POST /play/session: its JSON body, 200 with the consumption’s answer, refusals as HTML pages; the pages answer HTML', () => {
    const start = document.paths['/play/session'].post;
    const body = start.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['token']);
    expect(Object.keys(body.properties)).toEqual(['token', 'embed']);
    expect(start.responses['204']).toBeUndefined();
    // consume-session's answer, in the same envelope.
    expect(start.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/ConsumedSession',
    });
    expect(Object.keys(start.responses).sort()).toEqual(['200', '400', '403', '410', '413', '414', '429', '503']);
    for (const status of ['400', '403', '410', '503']) expect(Object.keys(start.responses[status].content)).toEqual(['text/html']);
    expect(Object.keys(document.paths['/game/{game_id}'].get.responses['410'].content)).toEqual(['text/html']);
    // The edge firewall's 429 is its JSON envelope, on a page too.
    expect(Object.keys(document.paths['/game/{game_id}'].get.responses['429'].content)).toEqual(['application/json']);
    expect(document.paths['/game/{game_id}'].get.parameters).toContainEqual(
      expect.objectContaining({ name: 'session_token', in: 'query' }),
    );
  });

  test('the deliveries’ operations: their query and bodies as validated, a delivery with its attempts, 404 and 409 documented', () => {
    const list = document.paths[`${API_PATH}/list-webhook-deliveries`].get;
    expect(list.parameters.map((p: any) => [p.name, p.required ?? false])).toEqual([
      ['org_id', true],
      ['webhook_id', true],
      ['cursor', false],
      ['limit', false],
    ]);
    expect(list.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/WebhookDeliveryPage',
    });
    expect(Object.keys(list.responses)).toContain('404');
    const { schemas } = document.components;
    expect(Object.keys(schemas.WebhookDelivery.properties)).toEqual([
      'id',
      'webhook_id',
      'event_type',
      'status',
      'attempts',
      'last_status_code',
      'created_at',
      'last_attempt_at',
      'next_attempt_at',
      'attempts_log',
      'payload',
    ]);
    expect(Object.keys(schemas.WebhookDelivery.properties.payload.properties)).toEqual(['type', 'timestamp', 'data']);
    expect(schemas.WebhookDelivery.required).toContain('payload');
    expect(schemas.WebhookView.required).toContain('failing_since');
    expect(schemas.WebhookDelivery.properties.status.enum).toEqual(['pending', 'succeeded', 'failed', 'exhausted', 'skipped']);
    expect(schemas.WebhookDelivery.properties.event_type.enum).toContain('webhook.test');
    expect(Object.keys(schemas.WebhookDeliveryAttempt.properties)).toEqual(['at', 'status_code', 'duration_ms', 'error']);
    for (const [action, required] of [
      ['retry-webhook-delivery', ['org_id', 'delivery_id']],
      ['test-webhook', ['id', 'org_id']],
    ] as const) {
      const op = document.paths[`${API_PATH}/${action}`].post;
      const body = op.requestBody.content['application/json'].schema;
      expect(body.required).toEqual(required);
      expect(body.additionalProperties).toBe(false);
      expect(op.responses['200'].content['application/json'].schema.properties.data).toEqual({
        $ref: '#/components/schemas/WebhookDelivery',
      });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['403', '404', '409']));
    }
    expect(
      document.paths[`${API_PATH}/retry-webhook-delivery`].post.requestBody.content['application/json'].schema.properties.delivery_id
        .pattern,
    ).toBe('^msg_[1-9][0-9]{0,15}_[0-9A-HJKMNP-TV-Z]{26}$');
    // recover-webhook: its window in the body, what it sent in the answer.
    const recover = document.paths[`${API_PATH}/recover-webhook`].post;
    const recoverBody = recover.requestBody.content['application/json'].schema;
    expect(recoverBody.required).toEqual(['org_id', 'id', 'since']);
    expect(Object.keys(recoverBody.properties)).toEqual(['org_id', 'id', 'since', 'until', 'dry_run']);
    expect(recoverBody.additionalProperties).toBe(false);
    expect(recover.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/WebhookRecovery',
    });
    expect(Object.keys(schemas.WebhookRecovery.properties)).toEqual(['webhook_id', 'since', 'until', 'dry_run', 'count', 'next_since']);
    expect(Object.keys(recover.responses)).toEqual(expect.arrayContaining(['400', '403', '404', '409', '429']));
  });

  test('bearer and API-key security schemes are declared', () => {
    expect(document.components.securitySchemes).toMatchObject({
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
  });
});
