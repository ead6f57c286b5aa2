/**
 * The deployed bundles against a real DynamoDB, for the `test/infra/bundle-*.test.ts` files: the
 * functions built exactly as CDK builds them (`cdkEsbuildOptions` over `functionCode`), an embedded
 * DynamoDB (dynalite) with every table under physical names unlike the logical ones, a recording
 * proxy in front of it (`recording-proxy.ts`), the local run's own seed helpers, and the function
 * environment of each configuration (`lambda`, `local`). A child Node process calls the bundles
 * (`bundled-child.ts`).
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionCode } from '../../infra/functions.js';
import {
  documentClient,
  ensureTables,
  prefixedTableNames,
  startEmbeddedDynamo,
  type DynamoConnection,
  type EmbeddedDynamo,
} from '../../infra/local/dynamo.js';
import { resetEnv, tableEnv } from '../../shared/platform/env.js';
import { overrideServices, services, type Services } from '../../infra/local/all-services.js';
import type { TableName } from '../../shared/tables.js';
import { buildEventModule } from './bundled-child.js';
import { cdkEsbuildOptions } from './cdk-esbuild.js';
import { recordingProxy, type DynamoCall } from './recording-proxy.js';

/** The function's credentials in the `lambda` configuration (Lambda puts the role's in the environment). */
const LAMBDA_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIALIFECYCLETEST',
  AWS_SECRET_ACCESS_KEY: 'lifecycle-secret',
  AWS_SESSION_TOKEN: 'lifecycle-token',
} as const;
/** The region of the `lambda` configuration. */
const REGION = 'eu-west-1';

/** A running embedded DynamoDB with the service's tables and the recording proxy, and the bundles built for it. */
export interface BundledService {
  /** Temporary folder of this run: bundles, dynalite's data, the functions' empty home. Removed by {@link BundledService.close}. */
  readonly root: string;
  /** The bundle file of each function built, by its routes-table name. */
  readonly bundles: Readonly<Record<string, string>>;
  /** The local front's event builder, built for the child (`bundled-child.ts`). */
  readonly eventModule: string;
  /** Physical table names, by logical name (`<label>-<name>`). */
  readonly tableNames: Readonly<Record<TableName, string>>;
  /** The table-name variables of the environment (`TOKENS_TABLE`, …) for those names. */
  readonly tableEnv: Readonly<Record<string, string>>;
  /** dynalite itself (its Unix socket): what the unbundled helpers of this process use (not recorded). */
  readonly dynamoConnection: DynamoConnection;
  /** The recording proxy in front of dynalite: what the bundles are pointed at. */
  readonly proxyEndpoint: string;
  /** Every call that went through the proxy, in the order DynamoDB answered them. */
  readonly calls: DynamoCall[];
  /**
   * Run `work` with this process's (unbundled) services on dynalite directly, as the local run's seed
   * does; the environment and the services are restored afterwards.
   */
  withServices<T>(work: (s: Services) => Promise<T>): Promise<T>;
  /** The environment every configuration shares: what `shared/platform/env.ts` requires and Lambda's own. */
  functionEnv(): Record<string, string>;
  /** Stop the proxy and dynalite, remove the folder. */
  close(): Promise<void>;
}

/**
 * Build the named functions' bundles (in parallel with starting dynalite, creating every table as
 * `<label>-<name>`, prefixed on a shared DynamoDB, and starting the recording proxy). Close it in `afterAll`, even when this failed
 * half-way: what started is stopped by the rejection itself.
 */
export async function startBundledService(options: { label: string; functions: readonly string[] }): Promise<BundledService> {
  const { label } = options;
  const root = mkdtempSync(join(tmpdir(), `gsts-bundle-${label}-`));
  // Named by the label (and, on a shared DynamoDB, a prefix of this run's own): the calls recorded show which.
  let tableNames = prefixedTableNames(`${label}-`);
  let env: Record<string, string> = {};
  const calls: DynamoCall[] = [];
  let dynamo: EmbeddedDynamo | undefined;
  let proxy: Server | undefined;

  const close = async (): Promise<void> => {
    if (proxy) {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    }
    await dynamo?.close();
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const built = Promise.all([buildBundles(options.functions, root), buildEventModule(root)]);
    dynamo = await startEmbeddedDynamo({ path: join(root, 'dynamodb'), scratch: true });
    tableNames = prefixedTableNames(`${label}-${dynamo.tablePrefix}`);
    env = tableEnv((name) => tableNames[name]);
    const dynamoConnection = dynamo.connection;
    await ensureTables(dynamoConnection, tableNames);
    let proxyEndpoint: string;
    ({ server: proxy, endpoint: proxyEndpoint } = await recordingProxy(dynamoConnection, calls));
    const [bundles, eventModule] = await built;
    return {
      root,
      bundles,
      eventModule,
      tableNames,
      tableEnv: env,
      dynamoConnection,
      proxyEndpoint,
      calls,
      close,
      withServices: (work) => withLocalServices(env, dynamoConnection, work),
      functionEnv: () => functionEnv(env, root),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The environment every configuration shares, for tables named as in `env`, with `root` as the folder of the run. */
function functionEnv(env: Record<string, string>, root: string): Record<string, string> {
  return {
    ...env,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    TZ: 'UTC',
    // A 5xx's line names its error: printed for a test that fails (`bundled-child.ts`).
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // The session-id permutation's key, as Secrets Manager hands it to the function.
    SESSION_ID_KEY: 'bundled-test-session-id-key-0123456789abcdef',
    // No shared config or credentials files of whoever runs the test: Lambda has none either.
    HOME: join(root, 'home'),
    AWS_CONFIG_FILE: join(root, 'home', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(root, 'home', 'credentials'),
  };
}

/** Build each function's bundle with the settings CDK uses, into `dir/<name>.mjs`; the files by name. */
async function buildBundles(names: readonly string[], dir: string): Promise<Record<string, string>> {
  const files = await Promise.all(
    names.map(async (name) => {
      const outfile = join(dir, `${name}.mjs`);
      await build(cdkEsbuildOptions(functionCode(name), outfile));
      return [name, outfile] as const;
    }),
  );
  return Object.fromEntries(files);
}

/** The unbundled services of this process on the given environment and DynamoDB, for one piece of work. */
async function withLocalServices<T>(
  environment: Record<string, string>,
  connection: DynamoConnection,
  work: (s: Services) => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, environment);
  resetEnv();
  overrideServices({ client: documentClient(connection) });
  const s = services();
  try {
    return await work(s);
  } finally {
    s.client.destroy();
    process.env = saved;
    resetEnv();
    overrideServices({});
  }
}

/** A configuration the bundles run in: its environment, and what its DynamoDB calls are signed with. */
interface Configuration {
  readonly configuration: 'lambda' | 'local';
  readonly env: (service: BundledService) => Record<string, string>;
  readonly signedWith: { readonly accessKeyId: string; readonly region: string; readonly sessionToken: string | undefined };
}

/**
 * The two configurations:
 * - `lambda`: the environment of a deployed function (no `DYNAMODB_ENDPOINT`: the client AWS uses,
 *   with its request timeouts, region from `AWS_REGION` and credentials from the environment through
 *   the stand-in), pointed at the proxy by the SDK's standard `AWS_ENDPOINT_URL_DYNAMODB`.
 * - `local`: `DYNAMODB_ENDPOINT` set, the client of the local run (fixed local credentials).
 */
export const CONFIGURATIONS: readonly Configuration[] = [
  {
    configuration: 'lambda',
    env: (service) => ({ ...service.functionEnv(), ...LAMBDA_CREDENTIALS, AWS_ENDPOINT_URL_DYNAMODB: service.proxyEndpoint }),
    signedWith: { accessKeyId: LAMBDA_CREDENTIALS.AWS_ACCESS_KEY_ID, region: REGION, sessionToken: LAMBDA_CREDENTIALS.AWS_SESSION_TOKEN },
  },
  {
    configuration: 'local',
    // Credentials in the environment too (as in Lambda); the local client signs with its own.
    env: (service) => ({
      ...service.functionEnv(),
      AWS_ACCESS_KEY_ID: 'AKIAUNUSED',
      AWS_SECRET_ACCESS_KEY: 'unused',
      DYNAMODB_ENDPOINT: service.proxyEndpoint,
    }),
    signedWith: { accessKeyId: 'local', region: 'local', sessionToken: undefined },
  },
];
