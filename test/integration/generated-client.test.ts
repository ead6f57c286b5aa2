/**
 * A client generated from the SERVED OpenAPI document works: openapi-typescript generates
 * the types from `GET /api/openapi.json`, byte-for-byte the committed `test/support/openapi-paths.ts`
 * (so nothing was edited by hand); the partner code of `test/support/openapi-client.ts` type-checks
 * against those fresh types with the TypeScript compiler; and it runs, through openapi-fetch, the
 * session lifecycle (mint → validate → consume → revoke) and the key CRUD against a local stack.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { CLIENT_TYPES_FILE, clientTypesText } from '../../infra/openapi.js';
import { adminApi } from '../support/admin-api.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { keyCrud, serviceClient, sessionLifecycle } from '../support/openapi-client.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_CODE = join(ROOT, 'test', 'support', 'openapi-client.ts');

let stack: Stack;
let generated: string;
beforeAll(async () => {
  stack = await startStack();
  const served = await stack.request('/api/openapi.json');
  generated = await clientTypesText(served.body);
});
afterAll(() => stack.stop());

/** Type-check the client code with the given text as the generated types (the project's compiler options). */
function typeErrors(types: string, extraCode?: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const extraFile = join(dirname(CLIENT_CODE), 'openapi-client-extra.ts');
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === CLIENT_TYPES_FILE ? types : file === extraFile ? extraCode : readFile(file));
  host.fileExists = (
    (exists) => (file: string) =>
      file === CLIENT_TYPES_FILE || file === extraFile || exists(file)
  )(host.fileExists.bind(host));
  const roots = [CLIENT_TYPES_FILE, CLIENT_CODE, ...(extraCode ? [extraFile] : [])];
  const program = ts.createProgram(roots, { ...config.options, noEmit: true }, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated from the served document', () => {
  test('is the committed one, unedited (regenerate with npm run openapi)', () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(generated);
  });

  test('types the partner code: it compiles against the fresh types, and a wrong call does not', () => {
    expect(typeErrors(generated)).toEqual([]);
    const wrong = `import { serviceClient } from './openapi-client.js';
const client = serviceClient('http://localhost');
void client.POST('/api/org-api-keys?action=create-session', { body: { game_id: 1 } });
void client.POST('/api/org-api-keys/create-session', { body: { game_id: 'one' } });
void client.GET('/api/org-api-keys/validate-session', { params: { query: { token: 1 } } });
`;
    expect(typeErrors(generated, wrong)).toHaveLength(3);
  }, 120_000);

  test('runs the session lifecycle: mint → validate → consume (then 410) → revoke', async () => {
    const seen = await sessionLifecycle(serviceClient(stack.baseUrl), stack.credentials.api_key, 101);
    expect(seen).toEqual({
      token: expect.stringMatching(/^[0-9a-f-]{36}$/),
      validStatus: 'active',
      sessionId: expect.any(Number),
      consumedAgain: { status: 410, code: 'session_gone' },
      revoked: 'revoked',
    });
  });

  test('runs the key CRUD as an org admin: create, list, revoke, reactivate, rotate, audit, delete', async () => {
    const seen = await keyCrud(serviceClient(stack.baseUrl), await adminApi(stack).bearer('acme-admin'), 1);
    expect(seen).toEqual({
      created: { id: expect.any(Number), key: expect.stringMatching(/^dpk_[0-9a-f]{40}$/), name: 'Generated client' },
      listed: true,
      deactivated: true,
      rotatedTo: expect.any(Number),
      auditActions: expect.arrayContaining(['create-key', 'update-key', 'rotate-key']),
      deleted: [seen.created.id, seen.rotatedTo],
    });
    stack.secrets.noteRawKey(seen.created.key);
  });
});
