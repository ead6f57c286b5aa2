/**
 * `npm run token -- <user>`: a fresh bearer token (12 h) for a demo user, issued by the local
 * identity provider of the service `npm start` runs on `DATA_DIR` (default `.local`): the user signs
 * in to it as the console would (`dev-sign-in.ts`), so the service must be running. The base URL
 * comes from the data folder's credentials file. Only the token goes to stdout:
 * `AUTH=$(npm run -s token -- acme-admin)`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { signInAs } from './dev-sign-in.js';
import { OIDC_PATH } from './identity-provider.js';
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
if (!existsSync(credentialsFile)) fail(`no local service data in ${dataDir}: run npm start first (with the same DATA_DIR)`);
const { base_url } = JSON.parse(readFileSync(credentialsFile, 'utf8')) as DevCredentials;
const issuer = `${base_url}${OIDC_PATH}`;

/** Whether anything answers at the base URL (a refused connection means the service is not running). */
async function running(): Promise<boolean> {
  try {
    await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

if (!(await running())) {
  fail(`the local service of ${dataDir} is not running at ${base_url}: start it with npm start (same DATA_DIR), then run this again`);
}
try {
  process.stdout.write(`${(await signInAs(issuer, base_url, user)).accessToken}\n`);
} catch (error) {
  fail(`could not get a token from the identity provider at ${issuer}: ${error instanceof Error ? error.message : String(error)}`);
}
