/**
 * `npm run token -- <user>`: a fresh bearer token (12 h) for a demo user, signed by the local dev
 * issuer of the service `npm start` runs on `DATA_DIR` (default `.local`). It reads the issuer's key
 * and the base URL (the token's issuer) from the data folder, so the service must have started
 * there once. Only the token goes to stdout: `AUTH=$(npm run -s token -- acme-admin)`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadDevIssuer } from './dev-issuer.js';
import { DEMO_USERS } from './seed.js';
import type { DevCredentials } from './service.js';

const dataDir = resolve(process.env.DATA_DIR ?? '.local');
const user = process.argv[2];
const users = DEMO_USERS.map((u) => u.subject);

/** Stop with a message on stderr (the caller's `$(…)` gets nothing). */
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

if (!user || !users.includes(user)) fail(`usage: npm run token -- <user>, where <user> is one of: ${users.join(', ')}`);
const credentialsFile = join(dataDir, 'dev-credentials.json');
if (!existsSync(credentialsFile) || !existsSync(join(dataDir, 'dev-issuer-key.json'))) {
  fail(`no local service data in ${dataDir}: run npm start first (with the same DATA_DIR)`);
}
const { base_url } = JSON.parse(readFileSync(credentialsFile, 'utf8')) as DevCredentials;
const issuer = await loadDevIssuer(dataDir, `${base_url}/dev-issuer`);
process.stdout.write(`${await issuer.sign(user)}\n`);
