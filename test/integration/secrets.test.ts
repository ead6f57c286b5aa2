/**
 * Secrets at rest and in logs: after a run of calls that exercise every outcome, neither the data
 * folder (embedded DynamoDB files, issuer key) nor the captured log lines contain a raw API key or
 * a whole session token. Only the credentials file, whose purpose is to hand the key over, holds it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateRawKey } from '../../shared/keys/api-keys.js';
import { hashApiKey } from '../../shared/keys/credential.js';
import { createTestKey, type TestKey } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { snapshotTables } from '../support/tables.js';
import { API, sessionsApi } from '../support/sessions-api.js';

let stack: Stack;
let api: ReturnType<typeof sessionsApi>;
let limited: TestKey;
const tokens: string[] = [];
const CREDENTIALS_FILE = 'dev-credentials.json';

beforeAll(async () => {
  stack = await startStack();
  const demoKey = stack.credentials.api_key;
  api = sessionsApi(stack, () => demoKey);
  limited = await createTestKey(stack, { rate_limit_per_minute: 1 });
  const unknownKey = generateRawKey();

  // Every outcome, with the demo key presented each time.
  const minted = await Promise.all([api.create({ game_id: 101, external_ref: 'a' }), api.create({ stream_id: 201 })]);
  tokens.push(...minted.map((r) => r.body.data.token as string));
  await api.validate(tokens[0]!);
  await api.consume({ token: tokens[0]!, player_uuid: 'p-1' });
  await api.consume({ token: tokens[0]! }); // 410
  await api.revoke({ token: tokens[1]! });
  await api.revoke({ token: randomUUID() }); // 404
  await api.create({ game_id: 301 }); // 403
  await api.create({ game_id: 101, expires_in_minutes: 0 }); // 400
  await stack.request(`${API}?action=create-session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': demoKey },
    body: '{"game_id":',
  }); // 400, malformed
  await stack.request(`${API}?action=create-session`, { method: 'GET', headers: { 'x-api-key': demoKey } }); // 405
  await api.create({ game_id: 101 }, unknownKey); // 401
  await api.create({ game_id: 101 }, limited.raw);
  await api.create({ game_id: 101 }, limited.raw); // 429
});
afterAll(() => stack.stop());

/** Every file under a folder, as bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

const holding = (files: { path: string; bytes: Buffer }[], needle: string) =>
  files.filter((f) => f.bytes.includes(needle) || f.bytes.includes(Buffer.from(needle, 'utf16le'))).map((f) => f.path);

describe('secrets', () => {
  test('the data folder holds the raw demo key only in the credentials file', () => {
    const key = stack.credentials.api_key;
    const files = filesUnder(stack.dataDir);
    // The scan sees stored data where it lives: dynalite keeps the tables in the data folder (the
    // key's hash and a token are in its files); the test workers' DynamoDB Local keeps them in its
    // JVM's memory (none of them here: the stored items are checked by the next test).
    const inFolder = stack.dynamoBackend === 'dynalite';
    expect(holding(files, hashApiKey(key)).length > 0).toBe(inFolder);
    expect(holding(files, tokens[0]!).length > 0).toBe(inFolder);

    expect(holding(files, key)).toEqual([join(stack.dataDir, CREDENTIALS_FILE)]);
    expect(holding(files, key.slice(4)).map((p) => p.endsWith(CREDENTIALS_FILE))).toEqual([true]);
    expect(holding(files, limited.raw)).toEqual([]);
    expect(holding(files, limited.raw.slice(4))).toEqual([]);
  });

  test('the stored items (every table, read back) hold key hashes and tokens, never a raw key', async () => {
    const stored = JSON.stringify(Object.values(await snapshotTables(stack)).flatMap((items) => [...items.values()]));
    const key = stack.credentials.api_key;
    // What is stored, so that the scan is known to see the data.
    expect(stored).toContain(hashApiKey(key));
    expect(stored).toContain(hashApiKey(limited.raw));
    expect(stored).toContain(tokens[0]!);
    for (const raw of [key, limited.raw]) {
      expect(stored).not.toContain(raw);
      expect(stored).not.toContain(raw.slice(4));
    }
  });

  test('the captured logs hold no raw key and no whole token', () => {
    const logs = capturedLogs.join('');
    // The logs were captured: one line per request, with the key prefix.
    expect(logs).toContain('"operation":"create-session"');
    expect(logs).toContain(stack.credentials.api_key.slice(0, 8));

    expect(logs).not.toContain(stack.credentials.api_key);
    expect(logs).not.toContain(stack.credentials.api_key.slice(4));
    expect(logs).not.toContain(limited.raw.slice(4));
    for (const token of tokens) expect(logs).not.toContain(token);
  });
});
