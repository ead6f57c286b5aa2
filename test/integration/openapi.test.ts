/**
 * The OpenAPI 3.1 document: generated from the routes table and the zod schemas, served at
 * GET /api/openapi.json, and committed as docs/openapi.json (stale file: run `npm run openapi`).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { OPENAPI_FILE, openApiFileText } from '../../infra/openapi.js';
import { routes } from '../../shared/routes.js';
import { CreateKeyBody } from '../../shared/schemas/keys.js';
import { buildDocument } from '../../shared/schemas/openapi.js';
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
      expect(found.path).toBe('action' in route && route.action ? `${route.path}?action=${route.action}` : route.path);
      if ('action' in route && route.action) {
        expect(found.op.parameters).toContainEqual(expect.objectContaining({ in: 'query', name: 'action', required: true }));
      }
      const security = found.op.security ?? [];
      expect(security).toEqual(route.auth === 'none' ? [] : [{ [route.auth]: [] }]);
    }
  });

  test('the key-management schemas are the validating zod schemas, bounds included', () => {
    const create = document.components.schemas.CreateApiKeyRequest;
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

  test('bearer and API-key security schemes are declared', () => {
    expect(document.components.securitySchemes).toMatchObject({
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
  });
});
