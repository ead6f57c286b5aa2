/**
 * Only the service reaches the data of `npm start` (SECURITY.md, "Local run"): the real
 * script runs on the backend of this test project (dynalite in `integration`, DynamoDB Local in
 * `integration-local`), and every TCP port its processes listen on is tried as another local user
 * or a web page would: DynamoDB requests signed with guessed credentials see none of its tables and
 * plant no working API key, and no port answers a CORS preflight of another origin.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localTableNames } from '../../infra/local/dynamo.js';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import { addFigures } from '../support/figures.js';
import { runNpmStart, type RunningNpmStart } from '../support/npm-start.js';
import { canListTcpListeners, tcpListeners, type TcpListener } from '../support/tcp-listeners.js';
import { stopAll } from '../support/teardown.js';

const backend = process.env.DYNAMODB_BACKEND === 'local' ? 'local' : 'dynalite';

/** What an outsider would sign with: the emulators' customary dummy key, and any other. */
const GUESSES = [
  { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
  { region: 'us-east-1', credentials: { accessKeyId: 'AKIAOUTSIDER0000000', secretAccessKey: 'guessed' } },
] as const;

/** The origin of a page of another site open in the same machine's browser. */
const ATTACKER = 'https://attacker.example';

if (!canListTcpListeners()) {
  addFigures({}, { localDataSkipped: 'the listening ports of npm start are read from /proc (Linux only): not checked here' });
}
const onLinux = canListTcpListeners() ? describe : describe.skip;

let service: RunningNpmStart | undefined;
let dataDir: string;
let listeners: TcpListener[] = [];
onLinux(`npm start on ${backend}: its data is the service's only`, () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gsts-local-data-'));
    service = await runNpmStart({ PORT: '0', DATA_DIR: dataDir, ...(backend === 'local' ? { DYNAMODB_BACKEND: 'local' } : {}) });
    listeners = tcpListeners(service.child.pid!);
  }, 120_000);
  afterAll(() =>
    stopAll(
      () => service?.stop(),
      () => dataDir && rmSync(dataDir, { recursive: true, force: true }),
    ),
  );

  test('it runs on the backend of this project, and its listening ports are found (the front among them)', () => {
    expect(service!.printed).toMatch(backend === 'local' ? /^DynamoDB: DynamoDB Local /m : /^DynamoDB: dynalite /m);
    expect(listeners).toContainEqual({ host: '127.0.0.1', port: Number(new URL(service!.baseUrl).port) });
  });

  test('no listening port shows a table of the service to DynamoDB requests with guessed credentials', async () => {
    const seen: string[] = [];
    for (const listener of listeners) {
      for (const guess of GUESSES) {
        const client = outsider(listener, guess);
        const answer = await client.send(new ListTablesCommand({})).catch(() => undefined);
        client.destroy();
        seen.push(...(answer?.TableNames ?? []).map((name) => `${listener.port}: ${name}`));
      }
    }
    expect(seen).toEqual([]);
  });

  test('no listening port answers a CORS preflight, or a DynamoDB call, of another origin with Access-Control-Allow-Origin', async () => {
    const allowed: string[] = [];
    for (const { host, port } of listeners) {
      const url = `http://${host}:${port}/`;
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: ATTACKER,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-amz-date,x-amz-target',
        },
      });
      const call = await fetch(url, {
        method: 'POST',
        headers: { origin: ATTACKER, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
        body: '{}',
      });
      for (const answer of [preflight, call]) {
        const allow = answer.headers.get('access-control-allow-origin');
        if (allow !== null) allowed.push(`${port}: ${allow}`);
      }
    }
    expect(allowed).toEqual([]);
  });

  test('an API key put into the keys table through any listening port does not authenticate', async () => {
    const planted = generateRawKey();
    // A key of org 2 (globex), as an outsider would plant one for an organization of their choice.
    const record = newKeyRecord(planted, 990_001, { org_id: 2, tier: 'enterprise' }, { name: 'planted' }, Date.now());
    for (const listener of listeners) {
      for (const guess of GUESSES) {
        const client = outsider(listener, guess);
        await DynamoDBDocumentClient.from(client)
          .send(new PutCommand({ TableName: localTableNames.keys, Item: record }))
          .catch(() => undefined);
        client.destroy();
      }
    }
    const create = (key: string, game: number) =>
      fetch(`${service!.baseUrl}/api/org-api-keys?action=create-session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ game_id: game }),
      });
    expect((await create(planted, 301)).status).toBe(401);
    // The service's own demo key still works: the refusal is the planted key's.
    const demoKey = (JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8')) as { api_key: string }).api_key;
    expect((await create(demoKey, 101)).status).toBe(200);
  });
});

/** A DynamoDB client of someone else on this machine, pointed at a listening port. */
function outsider({ host, port }: TcpListener, guess: (typeof GUESSES)[number]): DynamoDBClient {
  return new DynamoDBClient({ endpoint: `http://${host}:${port}`, maxAttempts: 1, region: guess.region, credentials: guess.credentials });
}
