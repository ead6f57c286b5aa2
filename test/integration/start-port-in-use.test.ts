/**
 * `npm start` on a port already in use: one line saying what to do, a non-zero exit,
 * and nothing left behind (the data folder it would have made is not there).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmStartOutcome } from '../support/npm-start.js';
import { stopAll } from '../support/teardown.js';

let taken: Server;
let port: number;
let parent: string;
beforeAll(async () => {
  parent = mkdtempSync(join(tmpdir(), 'gsts-port-'));
  taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  port = (taken.address() as { port: number }).port;
});
afterAll(() =>
  stopAll(
    () => new Promise<void>((done) => taken?.close(() => done())),
    () => parent && rmSync(parent, { recursive: true, force: true }),
  ),
);

test('npm start on a port in use says in one line what to do, exits 1, and creates no data folder', async () => {
  const dataDir = join(parent, 'data');
  const { code, stdout, stderr } = await npmStartOutcome({ PORT: String(port), DATA_DIR: dataDir });
  expect(code).toBe(1);
  // Only the line (runtime notices of the tooling, if any, are not the service's).
  const lines = stderr.split('\n').filter((line) => line.trim() !== '' && !/warning/i.test(line));
  expect(lines).toEqual([
    `Port ${port} is already in use (another npm start?): stop what listens on it, or choose another port with PORT, e.g. PORT=3000 npm start`,
  ]);
  expect(stdout).toBe('');
  expect(existsSync(dataDir)).toBe(false);
}, 60_000);
