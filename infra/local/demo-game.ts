/**
 * The built-in demo game of the local run (static files beside this module), served by the local
 * front's `extra` hook at the path the seeded games and streams point at, and a ready-to-open play
 * link for the start banner.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyCredential } from '../../shared/keys/credential.js';
import { playUrl } from '../../shared/play/play.js';
import type { Services } from './all-services.js';
import { DEMO_GAME_PATH } from './seed.js';

const PREFIX = DEMO_GAME_PATH.slice(0, DEMO_GAME_PATH.lastIndexOf('/') + 1);

/**
 * The files, by name: nothing else under the prefix is served (no path is ever joined from the URL).
 * A Map, not an object literal: a name from the URL must never reach a prototype property
 * (`constructor`, `__proto__`, `toString`).
 */
const FILES = new Map<string, string>([
  ['index.html', 'text/html; charset=utf-8'],
  ['game.js', 'text/javascript; charset=utf-8'],
  ['game.css', 'text/css; charset=utf-8'],
]);

/** The front's `extra` hook: serve the demo game's files; true when the request was one of them. */
export async function serveDemoGame(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (!url.pathname.startsWith(PREFIX)) return false;
  const name = url.pathname.slice(PREFIX.length) || 'index.html';
  const type = FILES.get(name);
  if (!type || (req.method !== 'GET' && req.method !== 'HEAD')) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
    return true;
  }
  const body = await readFile(new URL(`./demo-game/${name}`, import.meta.url));
  res.writeHead(200, {
    'content-type': type,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    // No frame-ancestors: it is checked against every ancestor, and an embed page that frames the
    // game may itself be framed by any partner origin the org allows.
    'content-security-policy': "default-src 'self'",
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** Mint a token for game 101 with the demo key (as a partner's server would) and return its play URL. */
export async function demoPlayUrl(services: Services, apiKey: string, baseUrl: string): Promise<string> {
  const input = { game_id: 101, stream_id: null, external_ref: 'npm-start', metadata: null, player_ref: null, expires_in_minutes: 1440 };
  const key = await services.keyCalls.authenticate(keyCredential(apiKey));
  const call = { requestId: `npm-start-${Date.now()}`, sourceIp: '127.0.0.1', userAgent: 'npm start' };
  const created = await services.sessions.create(key, input, call, 'create-session', await services.sessions.readTarget(input));
  return playUrl(baseUrl, 'game', 101, created.token);
}
