/**
 * One Lambda function per distinct `function` of THE routes table, each bundled by the local esbuild
 * (no Docker) from `functions/<name>.ts` into a single ESM file, with its own role that may do only
 * what its routes declare and an environment of only the variables its code reads. The workers
 * (`workers.ts`) are built on the same code, size, logging and role settings, exported here.
 */
import { pascalCase } from './construct-ids.js';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionEnvVars, type EnvVar } from '../shared/platform/env-parts.js';
import { type EnvInput, tableEnv, type TableEnvVar } from '../shared/platform/env.js';
import type { RouteDefinition } from '../shared/platform/route.js';
import type { TableName } from '../shared/tables.js';
import { RESERVED_OPERATION } from './capacity.js';
import { dataStatements, functionAccess, functionNames, type TableAccess } from './permissions.js';
import type { ServiceTables } from './tables.js';
import { QUEUE_URL_VARS } from './queues.js';

/** The repository root (functions/, package-lock.json). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Memory of every function. 256 MB: each request is a few small DynamoDB calls, and Lambda's CPU
 * share grows with memory, so this keeps cold starts (bundle parse) short at a low price.
 */
export const FUNCTION_MEMORY_MB = 256;
/** Far above a request's few DynamoDB round trips (and a cold JWKS fetch), below API Gateway's 30 s. */
export const FUNCTION_TIMEOUT = Duration.seconds(10);
/** The runtime matches the Node major of the local run (the `node` devDependency): 24. */
const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;
const FUNCTION_ARCHITECTURE = Architecture.ARM_64;

/**
 * Lambda's own lines (START, END, REPORT, INIT_START) are INFO; WARN keeps the platform's warnings
 * and errors (timeouts, crashes, out of memory) and drops those three lines every invocation writes.
 * Duration, memory and init figures stay in Lambda's CloudWatch metrics and X-Ray traces.
 */
export const SYSTEM_LOG_LEVEL = SystemLogLevel.WARN;
/** Lambda's log format: JSON, so that Lambda can filter lines by their `level`. */
export const LOG_FORMAT = LoggingFormat.JSON;

/**
 * Lambda's application log level for the level the code logs at (`POWERTOOLS_LOG_LEVEL`). Lambda sets
 * `AWS_LAMBDA_LOG_LEVEL` from it, which the logger (`shared/platform/observability.ts`) obeys first, so both always agree.
 */
const APPLICATION_LOG_LEVELS: Record<NonNullable<EnvInput['POWERTOOLS_LOG_LEVEL']>, ApplicationLogLevel> = {
  DEBUG: ApplicationLogLevel.DEBUG,
  INFO: ApplicationLogLevel.INFO,
  WARN: ApplicationLogLevel.WARN,
  ERROR: ApplicationLogLevel.ERROR,
  SILENT: ApplicationLogLevel.FATAL,
};

/** Some dependencies are CommonJS and call `require`, which an ES module does not have. */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** esbuild settings: one minified ESM file per function, the AWS SDK included (a pinned, tested version). */
const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'],
  target: 'node24',
  banner: REQUIRE_BANNER,
  bundleAwsSDK: true,
  minify: true,
  // No `keepNames`: it costs every bundle about 30 KB and every cold start about a tenth. Nothing
  // reads a function's or class's name at run time (errors carry their own `name` property); only
  // stack traces in the logs show minified names, and each failure's log line names the error.
  // Quiet synth output: only problems.
  logLevel: LogLevel.WARNING,
  // Stand-ins that cut every bundle and cold start (figures in BENCHMARKS.md): the SDK's credential
  // chain, of which Lambda only ever uses the environment; `node:http` loaded without an ES module
  // namespace (whose creation loads Node's fetch implementation); the SDK's event-stream support,
  // which no DynamoDB operation uses; the client's endpoint-discovery cache (discovery is off), its
  // pure-JavaScript SHA-256 (Node's crypto is always there), the JMESPath interpreter of which the
  // idempotency store evaluates two fixed forms; and what the MCP SDK imports for paths the MCP
  // server never takes (JSON Schema validation for elicitation, zod 3). See `infra/bundle/` for why.
  esbuildArgs: {
    ...Object.fromEntries(
      [
        '@aws-sdk/credential-provider-node',
        '@aws-sdk/endpoint-cache',
        '@smithy/core/checksum',
        '@aws-lambda-powertools/jmespath',
        '@aws-lambda-powertools/jmespath/functions',
      ].map((name) => [`--alias:${name}`, join(PROJECT_ROOT, 'infra', 'bundle', 'stand-ins.ts')]),
    ),
    ...Object.fromEntries(
      ['node:http', 'http', '@smithy/core/event-streams'].map((name) => [
        `--alias:${name}`,
        join(PROJECT_ROOT, 'infra', 'bundle', 'lazy-stand-ins.ts'),
      ]),
    ),
    ...Object.fromEntries(
      ['ajv', 'ajv-formats', 'zod/v3', 'zod-to-json-schema'].map((name) => [
        `--alias:${name}`,
        join(PROJECT_ROOT, 'infra', 'bundle', 'mcp-unused.ts'),
      ]),
    ),
  },
};

/** Everything in the environment but the table names (which come from the tables themselves). */
export type FunctionSettings = Omit<EnvInput, TableEnvVar>;

export interface ServiceFunctionsProps {
  readonly routes: readonly RouteDefinition[];
  readonly tables: ServiceTables;
  readonly settings: FunctionSettings;
  /** The origin-verify secret; every function reads it (through the Parameters and Secrets extension). */
  readonly originSecret: ISecret;
  /**
   * The secrets the code reads at cold start, by the variable that names them: a function may read
   * one (`secretsmanager:GetSecretValue`) exactly when its environment has that variable.
   */
  readonly secrets: Readonly<Partial<Record<EnvVar, ISecret>>>;
  /** The queues by the variable that carries their URL; a function may send to those its routes declare (`sendsTo`). */
  readonly queues?: Readonly<Partial<Record<EnvVar, IQueue>>>;
  readonly logRetention: RetentionDays;
  /** Shown in each description: a new revision makes CloudFormation resolve the secrets again. */
  readonly secretsRevision: number;
  /**
   * Concurrency reserved for the function serving create-session (`infra/capacity.ts`): the partners'
   * minting keeps that many executions whatever else floods the account, and never takes more.
   */
  readonly createSessionConcurrency: number | 'none';
  /** X-Ray active tracing (Lambda samples 1 request a second + 5%); otherwise PassThrough. */
  readonly tracing: boolean;
}

/**
 * What makes a function's code: `functions/<name>.ts` exporting `handler` (or the file `entry`
 * names), bundled with {@link BUNDLING} for the runtime and architecture of every function.
 */
export function functionCode(name: string, entry = join(PROJECT_ROOT, 'functions', `${name}.ts`)): NodejsFunctionProps {
  if (!existsSync(entry)) throw new Error(`function '${name}' is declared, but ${relative(PROJECT_ROOT, entry)} does not exist`);
  return {
    entry,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
    runtime: FUNCTION_RUNTIME,
    architecture: FUNCTION_ARCHITECTURE,
    bundling: BUNDLING,
  };
}

/**
 * What every function of the service draws on, route or worker (`workers.ts`), computed once: the
 * service's environment (each function gets only the variables it reads), the tables' ARNs, the
 * log level.
 */
export interface ServiceConfig {
  readonly environment: Readonly<Record<string, string>>;
  readonly tableArns: Readonly<Record<TableName, string>>;
  readonly applicationLogLevel: ApplicationLogLevel;
}

/** The {@link ServiceConfig} of these tables and settings. */
export function serviceConfig(serviceTables: ServiceTables, settings: FunctionSettings): ServiceConfig {
  const level = settings.POWERTOOLS_LOG_LEVEL ?? 'INFO';
  const applicationLogLevel = APPLICATION_LOG_LEVELS[level as keyof typeof APPLICATION_LOG_LEVELS];
  if (!applicationLogLevel) throw new Error(`POWERTOOLS_LOG_LEVEL ${settings.POWERTOOLS_LOG_LEVEL} has no Lambda log level`);
  return {
    environment: definedOnly(functionEnvironment(serviceTables, settings)),
    tableArns: Object.fromEntries(Object.entries(serviceTables).map(([name, table]) => [name, table.tableArn])) as Record<
      TableName,
      string
    >,
    applicationLogLevel,
  };
}

/** A function's own log group: operational logs only (the audit trail lives in DynamoDB), so they go with the stack. */
export function functionLogGroup(scope: Construct, id: string, retention: RetentionDays): LogGroup {
  return new LogGroup(scope, id, { retention, removalPolicy: RemovalPolicy.DESTROY });
}

/**
 * A function's own role instead of the default one: no AWS managed policy, only the DynamoDB actions
 * `access` names, logs only to its own log group, and the secrets its code reads (those its
 * environment `reads` names). The caller adds what is particular to it.
 */
export function functionRole(
  scope: Construct,
  id: string,
  own: {
    readonly description: string;
    readonly access: TableAccess;
    readonly config: ServiceConfig;
    readonly logGroup: LogGroup;
    readonly reads: readonly EnvVar[];
    readonly secrets: Readonly<Partial<Record<EnvVar, ISecret>>>;
  },
): Role {
  const role = new Role(scope, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), description: own.description });
  for (const statement of dataStatements(own.access, own.config.tableArns)) role.addToPolicy(statement);
  own.logGroup.grantWrite(role);
  for (const [variable, secret] of Object.entries(own.secrets)) if (own.reads.includes(variable as EnvVar)) secret.grantRead(role);
  return role;
}

/** What is particular to one function, for {@link commonFunctionProps}. */
export interface OwnFunctionProps {
  readonly code: NodejsFunctionProps;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly description: string;
  readonly timeout: Duration;
  /** The variables its code reads: its environment is these of the service's. */
  readonly reads: readonly EnvVar[];
  /** Whether its code reads a secret (through the Parameters and Secrets extension, a layer). */
  readonly readsSecrets: boolean;
  readonly tracing: boolean;
}

/** A function's configuration on the settings every function of the service shares: size, logging, tracing, the secrets extension. */
export function commonFunctionProps(config: ServiceConfig, own: OwnFunctionProps): NodejsFunctionProps {
  return {
    ...own.code,
    memorySize: FUNCTION_MEMORY_MB,
    timeout: own.timeout,
    description: own.description,
    role: own.role,
    logGroup: own.logGroup,
    // JSON lets Lambda filter by level: the service's lines carry `level`, which Lambda reads.
    loggingFormat: LOG_FORMAT,
    systemLogLevelV2: SYSTEM_LOG_LEVEL,
    applicationLogLevelV2: config.applicationLogLevel,
    tracing: own.tracing ? Tracing.ACTIVE : Tracing.PASS_THROUGH,
    environment: only(config.environment, own.reads),
    // The extension serves the secrets on localhost with its own cache, so the bundle needs no
    // Secrets Manager client and a warm container does not call Secrets Manager.
    paramsAndSecrets: own.readsSecrets
      ? ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
          cacheSize: 10,
          logLevel: ParamsAndSecretsLogLevel.WARN,
        })
      : undefined,
  };
}

/** The functions of the service, by their routes-table name. */
export class ServiceFunctions extends Construct {
  readonly functions: ReadonlyMap<string, NodejsFunction>;
  readonly logGroups: ReadonlyMap<string, LogGroup>;

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    const config = serviceConfig(props.tables, props.settings);
    // The function whose concurrency is reserved (the one serving RESERVED_OPERATION).
    const reservedFunction = props.routes.find((route) => route.operation === RESERVED_OPERATION)?.function;
    const functions = new Map<string, NodejsFunction>();
    const logGroups = new Map<string, LogGroup>();
    // Per function, in this order (log group, role, function): the order fixes the template's.
    for (const name of functionNames(props.routes)) {
      const served = props.routes.filter((route) => route.function === name);
      const logGroup = functionLogGroup(this, `${pascalCase(name)}Logs`, props.logRetention);
      const reads = functionEnvVars(props.routes, name);
      const role = this.roleOf(name, served, props, config, { logGroup, reads });
      const fn = new NodejsFunction(this, pascalCase(name), {
        ...commonFunctionProps(config, {
          code: functionCode(name),
          role,
          logGroup,
          description: functionDescription(served, props.secretsRevision),
          timeout: FUNCTION_TIMEOUT,
          reads,
          readsSecrets: true,
          tracing: props.tracing,
        }),
        reservedConcurrentExecutions:
          name === reservedFunction && props.createSessionConcurrency !== 'none' ? props.createSessionConcurrency : undefined,
      });
      functions.set(name, fn);
      logGroups.set(name, logGroup);
    }
    this.functions = functions;
    this.logGroups = logGroups;
  }

  /**
   * A function's role ({@link functionRole}): the DynamoDB actions its routes declare, its log group,
   * the origin secret (every function checks the origin), the secrets its code reads, and sending
   * to the queues its routes declare they send to (`sendsTo`).
   */
  private roleOf(
    name: string,
    served: readonly RouteDefinition[],
    props: ServiceFunctionsProps,
    config: ServiceConfig,
    own: { readonly logGroup: LogGroup; readonly reads: readonly EnvVar[] },
  ): Role {
    const role = functionRole(this, `${pascalCase(name)}Role`, {
      description: `Runs the ${name} function: ${served.map((r) => r.operation).join(', ')}`,
      access: functionAccess(props.routes, name),
      config,
      logGroup: own.logGroup,
      reads: own.reads,
      secrets: props.secrets,
    });
    props.originSecret.grantRead(role);
    for (const name of new Set(served.flatMap((route) => route.sendsTo ?? []))) {
      const queue = props.queues?.[QUEUE_URL_VARS[name]];
      if (!queue) throw new Error(`a route sends to the queue ${name}, which the stack does not have`);
      role.addToPolicy(sendStatement(queue));
    }
    return role;
  }

  /** The function serving a route. */
  forRoute(route: RouteDefinition): NodejsFunction {
    const fn = this.functions.get(route.function);
    if (!fn) throw new Error(`no function for route ${route.operation}`);
    return fn;
  }
}

/** Sending to a queue, and nothing else of it (SendMessageBatch is allowed by SendMessage). */
export function sendStatement(queue: IQueue): PolicyStatement {
  return new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] });
}

/** The summaries of the routes a function serves, and the secrets revision (Lambda allows 256 characters). */
function functionDescription(served: readonly RouteDefinition[], secretsRevision: number): string {
  const suffix = ` (secrets revision ${secretsRevision})`;
  return (
    served
      .map((r) => r.summary)
      .join(' / ')
      .slice(0, 256 - suffix.length) + suffix
  );
}

/**
 * The environment of the whole service, typed by the schema the code parses at start-up: adding a
 * variable to `shared/platform/env.ts` fails the type check here until the stack decides its value. Each
 * function gets the part of it that its code reads (`shared/platform/env-parts.ts`).
 */
function functionEnvironment(serviceTables: ServiceTables, settings: FunctionSettings): EnvInput {
  return { ...tableEnv((name) => serviceTables[name].tableName), ...settings };
}

function definedOnly(environment: EnvInput): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The variables of `environment` a function reads (`shared/platform/env-parts.ts`): no secret or setting where it is not used. */
function only(environment: Readonly<Record<string, string>>, vars: readonly EnvVar[]): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).filter(([name]) => vars.includes(name as EnvVar)));
}
