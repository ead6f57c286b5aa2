/**
 * The whole service on one machine: embedded DynamoDB, tables, demo seed, the development identity
 * provider (`/oidc`), credentials file, TTL sweeper and the local front. `npm start` and the
 * integration tests both use this.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { type Clock, systemClock } from '../../shared/platform/time.js';
import { resetEnv, tableEnv } from '../../shared/platform/env.js';
import { overrideServices, services, type ServiceOverrides, type Services } from './all-services.js';
import { bearerCore, type HostLookup } from '../../shared/platform/services.js';
import { AdminAccess } from '../../shared/catalog/index.js';
import type { TableName } from '../../shared/tables.js';
import { DEV_AUDIENCE, loadDevSigningKey, tokenSigner, type TokenSigner } from './dev-signing-key.js';
import { signInAs } from './dev-sign-in.js';
import {
  awsRegionOf,
  documentClient,
  ensureTables,
  localTableNames,
  startEmbeddedDynamo,
  startTtlSweeper,
  type DynamoConnection,
  type EmbeddedDynamo,
} from './dynamo.js';
import { serveConsole } from './console.js';
import { serveDemoGame } from './demo-game.js';
import { createFront, type HttpHandler } from './front.js';
import { DEV_WEBHOOKS_PATH, devWebhooks, type DevWebhooks } from './dev-webhooks.js';
import { localQueues, startLocalWorkers, type LocalQueues, type LocalWorkers } from './workers.js';
import { createIdentityProvider, type IdentityProvider } from './identity-provider.js';
import { loadLocalSecret } from './local-secret.js';
import { loopbackJwksCache } from './loopback-jwks.js';
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
  readonly runningDynamo?: { readonly connection: DynamoConnection; readonly backend: EmbeddedDynamo['backend'] };
  /**
   * Tables of this run only (tests): on a shared DynamoDB (a test worker's DynamoDB Local, a given
   * endpoint) they get a prefix of their own and are deleted on close.
   */
  readonly scratchTables?: boolean;
  /**
   * Run the workers (streams, delivery queue, schedule: `workers.ts`); true by default. Off, writes
   * make no webhook deliveries, and queued messages wait (tests that record every DynamoDB call of
   * the service's client, the benchmark's request phases).
   */
  readonly workers?: boolean;
  /** Also seed a demo key with every MCP tool scope (`npm start`; tests make the keys they need). */
  readonly demoMcpKey?: boolean;
  /** Resolves webhook URLs' hosts (tests make names resolve where they need); the system's by default. */
  readonly hostLookup?: HostLookup;
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
  /**
   * What this run gave the functions' services (`overrideServices`): its clock, its DynamoDB client,
   * and the JWKS cache that fetches its identity provider's keys over plain HTTP on localhost. A
   * caller replacing one of them (the benchmark's clients) keeps the others.
   */
  readonly overrides: ServiceOverrides;
  readonly server: Server;
  /** The DynamoDB this runs on, as `npm start` prints it. */
  readonly dynamoDescription: string;
  /** Which engine (each returns the old item of a refused write that asks for it: dynalite through `dynalite-refusals.ts`). */
  readonly dynamoBackend: EmbeddedDynamo['backend'];
  /** How this process reaches the DynamoDB (the benchmark's proxy and raw client). */
  readonly dynamoConnection: DynamoConnection;
  /** Physical table names (prefixed on a shared DynamoDB). */
  readonly tableNames: Record<TableName, string>;
  /** The development webhook receiver at `/dev/webhooks` (`dev-webhooks.ts`): what arrived there. */
  readonly devWebhooks: DevWebhooks;
  /** The workers (streams, queue, schedule) on their local stand-ins (`workers.ts`). */
  readonly workers: LocalWorkers;
  close(): Promise<void>;
}

/**
 * The front's port is taken (or not this user's to open): nothing was started or created. The
 * message is one line saying what to do (`npm start` prints it as it is).
 */
export class PortUnavailable extends Error {
  constructor(
    readonly port: number,
    options: { cause: NodeJS.ErrnoException },
  ) {
    const other = port === 3000 ? 3001 : 3000;
    super(
      options.cause.code === 'EACCES'
        ? `Port ${port} may not be opened by this user: choose another with PORT, e.g. PORT=${other} npm start`
        : `Port ${port} is already in use (another npm start?): stop what listens on it, or choose another port with PORT, e.g. PORT=${other} npm start`,
      options,
    );
    this.name = 'PortUnavailable';
  }
}

/**
 * Start everything; resolves when the front listens. The front's port is taken first, so a port in
 * use ({@link PortUnavailable}) fails before anything is created. When a later step fails,
 * whatever had started (database, front) is stopped before the error is thrown, and a data folder
 * this start created is removed: nothing is left holding the process, nothing half-made on disk.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const dataDir = resolve(options.dataDir);
  // Requests that arrive while the service starts wait for it (as on a cold start).
  const ready = settleable<IdentityProvider>();
  const where: { baseUrl?: string; tableNames?: Record<TableName, string>; svc?: Services; queues?: LocalQueues } = {};
  const receiver = devWebhooks({
    baseUrl: () => where.baseUrl!,
    client: () => where.svc!.client,
    catalogTable: () => where.tableNames!.catalog,
    // As list-webhook-deliveries authorizes: the service's own bearer verifier, then the org's membership.
    authorize: async (authorization, orgId) => {
      const admin = await bearerCore().bearer.verify(authorization);
      await new AdminAccess(where.svc!.stores.catalog).authorize(admin, orgId, async () => undefined, {
        anyTier: true,
        permission: 'webhooks',
      });
    },
    failures: () => where.queues?.['stream-failures'],
  });
  const server = createFront({
    loadHandler: async (fn) => {
      await ready.promise;
      return loadHandler(fn);
    },
    extra: [
      serveConsole,
      serveDemoGame,
      async (req, res, url, body) => {
        if (!url.pathname.startsWith(DEV_WEBHOOKS_PATH)) return false;
        await ready.promise;
        return receiver.serve(req, res, url, body);
      },
    ],
    mount: async (req, res, url) => (await ready.promise).serve(req, res, url),
    loopbackOnly: true,
  });
  const port = options.port ?? 3000;
  await listen(server, port);
  const baseUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  where.baseUrl = baseUrl;

  const createdDataDir = !existsSync(dataDir);
  const started: { dynamo?: Pick<EmbeddedDynamo, 'close'>; svc?: Services; stopSweeper?: () => void; workers?: LocalWorkers } = {};
  const close = async () => {
    started.stopSweeper?.();
    await started.workers?.close();
    if (server.listening) await closeServer(server);
    started.svc?.client.destroy();
    await started.dynamo?.close();
  };
  try {
    protectDataDir(dataDir);
    const running = options.runningDynamo;
    const dynamo = running
      ? {
          ...running,
          description: `${running.backend === 'local' ? 'DynamoDB Local' : running.backend} (its own process)`,
          tableNames: localTableNames,
          close: async () => undefined,
        }
      : await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb'), scratch: options.scratchTables ?? false });
    started.dynamo = dynamo;
    const { tableNames, connection } = dynamo;
    where.tableNames = tableNames;
    await ensureTables(connection, tableNames);

    const key = await loadDevSigningKey(dataDir);
    const idp = createIdentityProvider({ baseUrl, key, audience: DEV_AUDIENCE, users: DEMO_USERS });
    const issuer = await tokenSigner(key, idp.issuer);
    configureLocalEnv(dataDir, dynamo, idp, baseUrl);
    // The functions' client reaches the DynamoDB as this process does (dynalite: by its socket; DynamoDB
    // Local: with its access key), which no variable of the environment could say. The provider's
    // JWKS is served over plain HTTP on localhost, which the verifier's own fetcher (HTTPS) refuses.
    // The workers' queues stand in for SQS: the functions send to them, the workers take from them.
    const queues = (where.queues = localQueues(options.clock ?? systemClock, dataDir));
    const overrides: ServiceOverrides = {
      clock: options.clock,
      client: documentClient(connection),
      jwksCache: loopbackJwksCache(),
      local: true,
      queues,
      ...(options.hostLookup && { hostLookup: options.hostLookup }),
    };
    overrideServices(overrides);
    const svc = (started.svc = where.svc = services());
    ready.resolve(idp);

    await seedCatalog(svc);
    const credentials = await writeDevCredentials(svc, { dataDir, baseUrl, idp, demoMcpKey: options.demoMcpKey });
    started.stopSweeper = startTtlSweeper(svc.client, tableNames, options.sweepIntervalMs, () => svc.clock.now());
    const localWorkers = (started.workers = await startLocalWorkers({
      backend: dynamo.backend,
      connection,
      tableNames,
      queues,
      loadHandler: loadFunction,
      enabled: options.workers ?? true,
    }));
    const { description: dynamoDescription, backend: dynamoBackend } = dynamo;
    const identityProvider = { issuer: idp.issuer, jwksUri: idp.jwksUri };
    return {
      baseUrl,
      credentials,
      issuer,
      identityProvider,
      services: svc,
      overrides,
      server,
      dynamoDescription,
      dynamoBackend,
      dynamoConnection: connection,
      tableNames,
      devWebhooks: receiver,
      workers: localWorkers,
      close,
    };
  } catch (error) {
    ready.reject(error);
    await close().catch(() => undefined);
    if (createdDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A promise and its settling functions; a rejection nobody awaits is not reported. */
function settleable<T>(): { promise: Promise<T>; resolve(value: T): void; reject(reason: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Listen on loopback; a port already taken (or not ours to take) rejects as {@link PortUnavailable}. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((done, fail) => {
    const refused = (error: NodeJS.ErrnoException) =>
      fail(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? new PortUnavailable(port, { cause: error }) : error);
    server.once('error', refused).listen(port, '127.0.0.1', () => {
      server.off('error', refused);
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
  dynamo: Pick<EmbeddedDynamo, 'connection' | 'tableNames'>,
  idp: IdentityProvider,
  baseUrl: string,
): void {
  delete process.env.JWT_JWKS;
  Object.assign(process.env, {
    ...tableEnv((name) => dynamo.tableNames[name]),
    ...dynamoEnv(dynamo.connection),
    JWT_ISSUER: idp.issuer,
    JWT_AUDIENCE: DEV_AUDIENCE,
    JWT_JWKS_URL: idp.jwksUri,
    PUBLIC_BASE_URL: baseUrl,
    PLAY_COOKIE_SECRET: process.env.PLAY_COOKIE_SECRET ?? loadLocalSecret(dataDir, 'play-cookie-secret'),
    SESSION_ID_KEY: process.env.SESSION_ID_KEY ?? loadLocalSecret(dataDir, 'session-id-key'),
    WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY ?? loadLocalSecret(dataDir, 'webhook-secret-key'),
  });
  // The parsed environment is cached; the values above replace whatever an earlier start left.
  resetEnv();
}

/**
 * The region the functions run in: a real region's (a given `https://dynamodb.<region>.amazonaws.com`),
 * as in Lambda. Their client is given to them (`overrideServices`), never an endpoint variable.
 */
function dynamoEnv(connection: DynamoConnection): Record<string, string> {
  delete process.env.DYNAMODB_ENDPOINT;
  const region = awsRegionOf(connection.endpoint);
  return region ? { AWS_REGION: region } : {};
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
 * creates from now on, the embedded database's included, is readable by its owner only (umask 077,
 * which a process it starts inherits: a DynamoDB of its own process is started after this).
 * A database already running in the folder (`runningDynamo`) may remove a file between its listing
 * and its `chmod` (a rotated log or manifest): a file gone needs no closing.
 */
export function protectDataDir(dataDir: string): void {
  process.umask(0o077);
  const db = join(dataDir, 'dynamodb');
  mkdirSync(db, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  chmodSync(db, 0o700);
  // Files of an earlier run, made under a laxer umask.
  closeEntries(db);
}

/** Every entry under `dir` readable by its owner only (folders 0700, files 0600); entries that vanish meanwhile are skipped. */
function closeEntries(dir: string): void {
  const entries = unlessGone(() => readdirSync(dir, { withFileTypes: true })) ?? [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    unlessGone(() => chmodSync(path, entry.isDirectory() ? 0o700 : 0o600));
    if (entry.isDirectory()) closeEntries(path);
  }
}

/** `work`'s result, or undefined when the file it works on no longer exists (ENOENT). */
function unlessGone<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const handlers = new Map<string, Promise<unknown>>();

/** The handler export of `functions/<fn>.ts`, imported once. */
function loadFunction(fn: string): Promise<unknown> {
  let loaded = handlers.get(fn);
  if (!loaded) {
    loaded = import(new URL(`../../functions/${fn}.ts`, import.meta.url).href).then((m: { handler: unknown }) => m.handler);
    handlers.set(fn, loaded);
  }
  return loaded;
}

/** An HTTP function's handler. */
const loadHandler = (fn: string) => loadFunction(fn) as Promise<HttpHandler>;
