/**
 * What each function's bundle carries: only the part of the services it names (a feature's `services.ts`).
 * Built with the options CDK uses (the benchmark's mapping of `functionCode()`), reading esbuild's
 * list of the modules that ended up in each bundle.
 */
import { describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { functionCode } from '../../infra/functions.js';
import { functionNames } from '../../infra/permissions.js';
import { routes } from '../../shared/routes.js';
import { workers } from '../../shared/workers.js';
import { cdkEsbuildOptions } from '../support/cdk-esbuild.js';

/** The modules of which a function's bundle contains code, as paths relative to the project. */
async function bundledModules(name: string): Promise<string[]> {
  const result = await build({ ...cdkEsbuildOptions(functionCode(name), `${name}.mjs`), write: false, metafile: true });
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs);
  return inputs.filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path);
}

const has = (modules: readonly string[], fragment: string) => modules.some((m) => m.includes(fragment));

const DYNAMODB = 'node_modules/@aws-sdk/client-dynamodb/';
const SESSIONS = 'shared/sessions/sessions.ts';
const TOKENS = 'shared/sessions/session-tokens.ts';
const KEY_CALLS = 'shared/keys/key-calls.ts';
const IDEMPOTENCY = 'node_modules/@aws-lambda-powertools/idempotency/';
const ADMIN = 'shared/keys/key-admin.ts';
const JWT = 'node_modules/aws-jwt-verify/';
const PLAY = 'shared/play/play.ts';
const AUDIT_LOG = 'shared/usage/audit-log.ts';
const MCP = 'node_modules/@modelcontextprotocol/';
/** The tokens table's one decoder, and where the events worker keeps what it cannot read (signed requests, not the SQS client). */
const TOKEN_DECODER = 'shared/sessions/token-item.ts';
const STREAM_FAILURES = 'shared/webhooks/sqs-stream-failures.ts';
const SQS_CLIENT = 'node_modules/@aws-sdk/client-sqs/';

describe.each([
  // function, what it must carry, what it must not
  ['validate-session', [DYNAMODB, TOKENS], [SESSIONS, KEY_CALLS, IDEMPOTENCY, ADMIN, JWT, PLAY, MCP]],
  ['consume-session', [DYNAMODB, TOKENS], [SESSIONS, KEY_CALLS, IDEMPOTENCY, ADMIN, JWT, PLAY, MCP]],
  ['revoke-session', [DYNAMODB, SESSIONS], [IDEMPOTENCY, ADMIN, JWT, PLAY, MCP]],
  ['create-session', [DYNAMODB, SESSIONS, IDEMPOTENCY], [ADMIN, JWT, PLAY, MCP]],
  ['list-keys', [DYNAMODB, ADMIN, JWT], [SESSIONS, IDEMPOTENCY, PLAY, MCP]],
  ['audit-log', [DYNAMODB, AUDIT_LOG, JWT], [SESSIONS, IDEMPOTENCY, ADMIN, PLAY, MCP]],
  // The page script's play session consumes as consume-session does: the token part, no key calls.
  ['play-page', [DYNAMODB, PLAY, TOKENS], [SESSIONS, KEY_CALLS, IDEMPOTENCY, ADMIN, JWT, MCP]],
  ['mcp', [DYNAMODB, SESSIONS, IDEMPOTENCY, MCP], [ADMIN, JWT, PLAY]],
  ['openapi', [], [DYNAMODB, SESSIONS, IDEMPOTENCY, ADMIN, JWT, PLAY, MCP]],
  ['webhook-events', [DYNAMODB, TOKEN_DECODER, STREAM_FAILURES], [SQS_CLIENT, SESSIONS, KEY_CALLS, IDEMPOTENCY, ADMIN, JWT, PLAY, MCP]],
] as const)('%s', (name, carries, lacks) => {
  test(`carries ${carries.join(', ') || 'no service part'} and nothing else of the services`, async () => {
    const modules = await bundledModules(name);
    for (const fragment of carries) expect([fragment, has(modules, fragment)]).toEqual([fragment, true]);
    for (const fragment of lacks) expect([fragment, has(modules, fragment)]).toEqual([fragment, false]);
  });
});

test('no bundle carries what its stand-ins replace (infra/bundle/): the endpoint cache’s LRU, the JavaScript SHA-256, the JMESPath interpreter', async () => {
  for (const name of ['create-session', 'create-key', 'mcp']) {
    const modules = await bundledModules(name);
    for (const fragment of [
      'node_modules/mnemonist/',
      'node_modules/@aws-sdk/endpoint-cache/',
      'sha256/Sha256Js',
      '@aws-lambda-powertools/jmespath/',
    ]) {
      expect([name, fragment, has(modules, fragment)]).toEqual([name, fragment, false]);
    }
  }
});

// Every function and worker is bundled here (a build, not a speed check): minutes on a busy machine.
test('no bundle carries a local or test stand-in (infra/local/, test/), the workers’ included: the local runner and the tests inject theirs', async () => {
  const names = [...functionNames(routes), ...workers.map((w) => w.function)];
  const carried = await Promise.all(
    names.map(async (name) => [name, (await bundledModules(name)).filter((m) => m.startsWith('infra/local/') || m.startsWith('test/'))]),
  );
  expect(carried).toEqual(names.map((name) => [name, []]));
}, 180_000);
