/**
 * The admin console on the local front: the bundle (built in memory on first use) at `/console/`,
 * and `/console/config.json` from the local settings (the provider at `<baseUrl>/oidc`). The same
 * headers as the AWS distribution: index and config never cached, hashed assets immutable, the
 * strict CSP on every answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MethodNotAllowed, NotFound } from '../../shared/platform/errors.js';
import { env } from '../../shared/platform/env.js';
import type { ConsoleConfig } from '../console/config-shape.js';
import { bundleConsole, consoleConfig, consoleCsp, type ConsoleFiles } from '../console-build.js';
import { DEV_AUDIENCE } from './dev-signing-key.js';
import { CONSOLE_CLIENT_ID } from './identity-provider.js';

/** Where the console lives on the front. */
const CONSOLE_PATH = '/console/';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

let built: ConsoleFiles | undefined;

/** The bundle, built once per process (`npm start` builds it at start, a test on first request). */
export function localConsole(): ConsoleFiles {
  built ??= bundleConsole();
  return built;
}

/**
 * What `/console/config.json` says on this run: the provider the functions verify tokens with, read
 * through the env schema as they read it (`startLocalService` sets it once the front listens: it is
 * `<baseUrl>/oidc`), and the audience the local provider issues and the functions accept: always
 * {@link DEV_AUDIENCE} (`configureLocalEnv` sets `JWT_AUDIENCE` to it alone).
 */
function localConsoleConfig(): ConsoleConfig {
  return consoleConfig({ issuer: env().JWT_ISSUER, clientId: CONSOLE_CLIENT_ID, audience: DEV_AUDIENCE });
}

/** The front's `extra` hook for the console; true when the request was the console's (a refusal throws). */
export function serveConsole(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (url.pathname === '/console') {
    res.writeHead(301, { location: CONSOLE_PATH + url.search }).end();
    return true;
  }
  if (!url.pathname.startsWith(CONSOLE_PATH)) return false;
  const name = url.pathname.slice(CONSOLE_PATH.length) || 'index.html';
  const config = localConsoleConfig();
  const headers = {
    'content-security-policy': consoleCsp([new URL(config.issuer).origin]),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  const body = name === 'config.json' ? new TextEncoder().encode(JSON.stringify(config)) : localConsole().files.get(name);
  // Refusals are the error table's, answered by the front like any other.
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new MethodNotAllowed(['GET', 'HEAD']);
  if (!body) throw new NotFound('No such file of the console');
  const immutable = name.startsWith('assets/');
  res.writeHead(200, {
    ...headers,
    'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
