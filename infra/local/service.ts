/**
 * The whole service on one machine: embedded DynamoDB, tables, demo seed, the development identity
 * provider (`/oidc`), credentials file, TTL sweeper and the local front. `npm start` and the
 * integration tests both use this.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Clock } from '../../shared/domain/clock.js';
import { resetEnv } from '../../shared/env.js';
import { overrideServices, services, type Services } from '../../shared/services.js';
import type { TableName } from '../../shared/tables.js';
import { tableEnv } from '../../shared/table-env.js';
import { DEV_AUDIENCE, loadDevSigningKey, tokenSigner, type TokenSigner } from './dev-signing-key.js';
import { signInAs } from './dev-sign-in.js';
import { awsRegionOf, ensureTables, localTableNames, startEmbeddedDynamo, startTtlSweeper, type EmbeddedDynamo } from './dynamo.js';
import { serveConsole } from './console.js';
import { serveDemoGame } from './demo-game.js';
import { createFront, type HttpHandler } from './front.js';
import { createIdentityProvider, type IdentityProvider } from './identity-provider.js';
import { loadLocalSecret } from './local-secret.js';
import { DEMO_MCP_KEY, DEMO_USERS, ensureDemoKey, seedCatalog } from './seed.js';

/** What `${DATA_DIR}/dev-credentials.json` holds. */
export interface DevCredentials {
  base_url: string;
  api_key: string;
  /** A key of org 1 with the MCP scopes of every tool (`DEMO_MCP_KEY`), when the run seeds one. */
  mcp_api_key?: string;
  bearer_tokens: Record<string, string>;
}

export interface LocalServiceOptions {
  /** Port of the front; 0 picks a free one. */
  readonly port?: number;
  /** Where data lives (embedded DynamoDB, identity provider's key, credentials file). */
  readonly dataDir: string;
  /** A clock for the domain (tests move time); the wall clock by default. */
  readonly clock?: Clock;
  /** TTL sweep interval. */
  readonly sweepIntervalMs?: number;
  /**
   * A DynamoDB already running, and which engine it is (the benchmark runs dynalite or DynamoDB
   * Local in a process of its own); the embedded one is started in this process by default.
   */
  readonly runningDynamo?: { readonly endpoint: string; readonly backend: EmbeddedDynamo['backend'] };
  /**
   * Tables of this run only (tests): on a shared DynamoDB (a test worker's DynamoDB Local, a given
   * endpoint) they get a prefix of their own and are deleted on close.
   */
  readonly scratchTables?: boolean;
  /** Also seed a demo key with every MCP tool scope (`npm start`; tests make the keys they need). */
  readonly demoMcpKey?: boolean;
}

/** A running local service. */
export interface LocalService {
  readonly baseUrl: string;
  readonly credentials: DevCredentials;
  /**
   * The identity provider's issuer and audience, and a signer with its key: tests forge with it the
   * tokens a provider would never issue. The service's own tokens come from the provider.
   */
  readonly issuer: TokenSigner;
  /** The identity provider on the front: issuer `<baseUrl>/oidc`, and its JWKS URL. */
  readonly identityProvider: Pick<IdentityProvider, 'issuer' | 'jwksUri'>;
  readonly services: Services;
  readonly server: Server;
  /** The DynamoDB this runs on, as `npm start` prints it. */
  readonly dynamoDescription: string;
  /** Which engine: dynalite ignores `ReturnValuesOnConditionCheckFailure`, the others honour it. */
  readonly dynamoBackend: EmbeddedDynamo['backend'];
  /** Physical table names (prefixed on a shared DynamoDB). */
  readonly tableNames: Record<TableName, string>;
  close(): Promise<void>;
}

/**
 * Start everything; resolves when the front listens. When a step fails, whatever had started
 * (database, front) is stopped before the error is thrown: nothing is left holding the process.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const dataDir = resolve(options.dataDir);
  protectDataDir(dataDir);
  const started: { dynamo?: Pick<EmbeddedDynamo, 'close'>; server?: Server; svc?: Services; stopSweeper?: () => void } = {};
  const close = async () => {
    started.stopSweeper?.();
    if (started.server?.listening) await closeServer(started.server);
    started.svc?.client.destroy();
    await started.dynamo?.close();
  };
  try {
    const running = options.runningDynamo;
    const dynamo = running
      ? {
          ...running,
          description: `${running.backend === 'local' ? 'DynamoDB Local' : running.backend} (its own process) at ${running.endpoint}`,
          tableNames: localTableNames,
          close: async () => undefined,
        }
      : await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb'), scratch: options.scratchTables ?? false });
    started.dynamo = dynamo;
    const { tableNames } = dynamo;
    await ensureTables(dynamo.endpoint, tableNames);

    const { server, baseUrl, idp, key } = await startFront(options.port ?? 3000, dataDir);
    started.server = server;
    const issuer = await tokenSigner(key, idp.issuer);
    configureLocalEnv(dataDir, dynamo, idp, baseUrl);
    overrideServices({ clock: options.clock });
    const svc = (started.svc = services());

    await seedCatalog(svc);
    const credentials = await writeDevCredentials(svc, { dataDir, baseUrl, idp, demoMcpKey: options.demoMcpKey });
    started.stopSweeper = startTtlSweeper(svc.client, tableNames, options.sweepIntervalMs, () => svc.clock.now());
    const { description: dynamoDescription, backend: dynamoBackend } = dynamo;
    const identityProvider = { issuer: idp.issuer, jwksUri: idp.jwksUri };
    return { baseUrl, credentials, issuer, identityProvider, services: svc, server, dynamoDescription, dynamoBackend, tableNames, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * The front, listening on loopback only (requests for any other name are refused: DNS rebinding),
 * with the identity provider mounted under `/oidc` once the port, part of its issuer, is known.
 */
async function startFront(port: number, dataDir: string) {
  const mounted: { idp?: IdentityProvider } = {};
  const mount = (req: IncomingMessage, res: ServerResponse, url: URL) => mounted.idp?.serve(req, res, url) ?? false;
  const server = createFront({ loadHandler, extra: [serveConsole, serveDemoGame], mount, loopbackOnly: true });
  await listen(server, port);
  const baseUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  const key = await loadDevSigningKey(dataDir);
  const idp = (mounted.idp = createIdentityProvider({ baseUrl, key, audience: DEV_AUDIENCE, users: DEMO_USERS }));
  return { server, baseUrl, idp, key };
}

/** Listen on loopback; a port already taken rejects (instead of an 'error' nobody awaits). */
function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((done, fail) => {
    server.once('error', fail).listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
}

/** Stop a listening server, dropping its open (keep-alive) connections. */
function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise<void>((done) => server.close(() => done()));
}

/**
 * The functions read their configuration from the environment, as in Lambda: point it at the local
 * tables, database, identity provider and front. Tokens are verified through the provider's JWKS
 * URL, as in production (no inline JWKS). Secrets already in the environment win, so a developer
 * can reproduce a deployed value; otherwise they persist in the data folder across runs.
 */
function configureLocalEnv(
  dataDir: string,
  dynamo: Pick<EmbeddedDynamo, 'endpoint' | 'tableNames'>,
  idp: IdentityProvider,
  baseUrl: string,
): void {
  delete process.env.JWT_JWKS;
  Object.assign(process.env, {
    ...tableEnv((name) => dynamo.tableNames[name]),
    ...dynamoEnv(dynamo.endpoint),
    JWT_ISSUER: idp.issuer,
    JWT_AUDIENCE: DEV_AUDIENCE,
    JWT_JWKS_URL: idp.jwksUri,
    PUBLIC_BASE_URL: baseUrl,
    PLAY_COOKIE_SECRET: process.env.PLAY_COOKIE_SECRET ?? loadLocalSecret(dataDir, 'play-cookie-secret'),
    SESSION_ID_KEY: process.env.SESSION_ID_KEY ?? loadLocalSecret(dataDir, 'session-id-key'),
  });
  // The parsed environment is cached; the values above replace whatever an earlier start left.
  resetEnv();
}

/**
 * How the functions reach the DynamoDB: an emulator by its endpoint; a real region (a given
 * `https://dynamodb.<region>.amazonaws.com`) as in Lambda, by region and the default credentials.
 */
function dynamoEnv(endpoint: string): Record<string, string> {
  const region = awsRegionOf(endpoint);
  if (!region) return { DYNAMODB_ENDPOINT: endpoint };
  delete process.env.DYNAMODB_ENDPOINT;
  return { AWS_REGION: region };
}

/**
 * Demo keys and bearer tokens, written to `dev-credentials.json` (owner-only). The keys of an
 * earlier run are reused when they still work, so scripts and notes that hold them keep working.
 * Each demo user's bearer token is the access token the identity provider issues when that user
 * signs in to the console (the flow driven over HTTP, `dev-sign-in.ts`).
 */
async function writeDevCredentials(
  svc: Services,
  run: { dataDir: string; baseUrl: string; idp: IdentityProvider; demoMcpKey?: boolean },
): Promise<DevCredentials> {
  const credentialsFile = join(run.dataDir, 'dev-credentials.json');
  const previous = existsSync(credentialsFile) ? (JSON.parse(readFileSync(credentialsFile, 'utf8')) as Partial<DevCredentials>) : {};
  const apiKey = await ensureDemoKey(svc, previous.api_key);
  const mcpKey = run.demoMcpKey ? await ensureDemoKey(svc, previous.mcp_api_key, DEMO_MCP_KEY) : undefined;
  const bearer_tokens = Object.fromEntries(
    await Promise.all(
      DEMO_USERS.map(async (u) => [u.subject, (await signInAs(run.idp.issuer, run.baseUrl, u.subject)).accessToken] as const),
    ),
  );
  const credentials: DevCredentials = { base_url: run.baseUrl, api_key: apiKey, ...(mcpKey ? { mcp_api_key: mcpKey } : {}), bearer_tokens };
  writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return credentials;
}

/**
 * The data folder holds live tokens, the identity provider's private key and the credentials file: only its
 * owner may enter it (0700, also when it existed from an earlier run), and every file the process
 * creates from now on, the embedded database's included, is readable by its owner only (umask 077).
 */
export function protectDataDir(dataDir: string): void {
  process.umask(0o077);
  const db = join(dataDir, 'dynamodb');
  mkdirSync(db, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  chmodSync(db, 0o700);
  // Files of an earlier run, made under a laxer umask.
  for (const entry of readdirSync(db, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    chmodSync(path, entry.isDirectory() ? 0o700 : 0o600);
  }
}

const handlers = new Map<string, Promise<HttpHandler>>();

/** The handler export of `functions/<fn>.ts`, imported once. */
function loadHandler(fn: string): Promise<HttpHandler> {
  let loaded = handlers.get(fn);
  if (!loaded) {
    loaded = import(new URL(`../../functions/${fn}.ts`, import.meta.url).href).then((m: { handler: HttpHandler }) => m.handler);
    handlers.set(fn, loaded);
  }
  return loaded;
}
