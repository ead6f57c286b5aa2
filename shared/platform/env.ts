/**
 * THE environment: one zod schema types both what the functions parse from `process.env` at
 * start-up and the `environment` prop the CDK stack computes, of which each function gets the
 * variables its parts read (`env-parts.ts`). zod/mini, as the other runtime schemas
 * (`shared/platform/schemas.ts`: bundle size). Here too is the other direction for the tables:
 * from THE tables table to the variables carrying their physical names ({@link tableEnv}), which
 * the stack, the local run, the bundled tests and the benchmark hand the code, and the code reads
 * back through {@link env}.
 */
import * as z from 'zod/mini';
// For its effect: zod's refusals in the service's words (`schemas.ts`), for a misconfigured environment too.
import './schemas.js';
import { tables, type TableDefinition, type TableName } from '../tables.js';

/**
 * The physical table names. Optional here, because a function gets only the tables its parts use
 * (`env-parts.ts`); {@link required} fails loudly where a part reads one its function lacks.
 */
const tableNameVars = Object.fromEntries(Object.values(tables).map((t) => [t.envVar, z.optional(z.string().check(z.minLength(3)))])) as {
  [K in TableName as (typeof tables)[K]['envVar']]: z.ZodMiniOptional<z.ZodMiniString<string>>;
};

const positiveInt = z.coerce.number().check(z.int(), z.positive());
const positiveNumber = z.coerce.number().check(z.positive());

/** What the logger reads (`shared/platform/observability.ts`), when its module loads. */
const loggingVars = {
  /** The `service` of every log line. */
  POWERTOOLS_SERVICE_NAME: z._default(z.string(), 'game-session-token-service'),
  /** The lowest level written; Lambda's `AWS_LAMBDA_LOG_LEVEL`, set from it by the stack, takes precedence. */
  POWERTOOLS_LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
};
/**
 * Off Lambda only (the local run, tools): `json` (the default) or `text` (one short line a
 * request), read by the logger alone; `npm start` in a terminal makes it `text` when unset. Lambda's
 * lines are always JSON, so no function is given it.
 */
const LOG_FORMAT = z.optional(z.enum(['json', 'text']));
const LoggingSchema = z.object({ ...loggingVars, LOG_FORMAT });

export const EnvSchema = z.object({
  ...tableNameVars,
  /** Days a token item outlives its `expires_at` before TTL removes it (docs/decisions.md#retention: 7). */
  TOKEN_RETENTION_DAYS: z._default(positiveInt, 7),
  /** Days an audit record is kept (docs/decisions.md#retention: 90). */
  AUDIT_RETENTION_DAYS: z._default(positiveInt, 90),
  /**
   * Writes per second that one DynamoDB partition takes (DynamoDB: 1,000 WCU per partition key
   * value). Sizes the rate-limit counter shards (`shared/keys/rate-limit.ts`); the benchmark's
   * scaled capacity simulation lowers it together with its simulated partitions.
   */
  DYNAMODB_PARTITION_WRITE_UNITS: z._default(positiveNumber, 1000),
  /** OIDC issuer whose JWTs authenticate org admins. */
  JWT_ISSUER: z._default(z.string().check(z.minLength(1)), 'https://issuer.invalid'),
  /** Expected `aud` (or `client_id`) of admin JWTs; comma-separated for several. */
  JWT_AUDIENCE: z._default(z.string().check(z.minLength(1)), 'game-session-token-service'),
  /**
   * Longest lifetime accepted of an admin JWT, in seconds, counted from its `iat` (or `nbf`): a token
   * whose `exp` lies further out is refused, however it was signed (default 24 h).
   */
  JWT_MAX_LIFETIME_SECONDS: z._default(positiveInt, 86_400),
  /** JWKS URL of the issuer; fetched once per container. */
  JWT_JWKS_URL: z.optional(z.url()),
  /** The issuer's JWKS inline (unit tests): loaded without any network call. */
  JWT_JWKS: z.optional(z.string()),
  /** What is deployed (a commit or release, `-c buildVersion=`), as the health check reports it; `dev` when unset. */
  BUILD_VERSION: z._default(z.string().check(z.minLength(1)), 'dev'),
  /** Local only: the embedded DynamoDB endpoint. Absent in AWS. */
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  /**
   * AWS only: the Secrets Manager secret holding the header value CloudFront adds to every origin
   * request; when set, a request without it is refused (403) by `shared/platform/secrets.ts`.
   */
  ORIGIN_VERIFY_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
  /**
   * Browser origins (`https://agent.example`, comma-separated) allowed to call `/api/mcp`. A request
   * with any other `Origin` header is refused (403; DNS rebinding, MCP Streamable HTTP). Empty by
   * default: no browser origin; requests without `Origin` (server-side MCP clients) always pass.
   */
  MCP_ALLOWED_ORIGINS: z._default(z.string(), ''),
  /** Public base URL, used to build play links. An `https:` URL marks the play cookie `Secure`. */
  PUBLIC_BASE_URL: z._default(z.url(), 'http://localhost:3000'),
  /**
   * HMAC secret of the play cookie (a refresh keeps playing a consumed session). Required wherever
   * play pages serve tokened games; the local run generates one into its data folder.
   */
  PLAY_COOKIE_SECRET: z.optional(z.string().check(z.minLength(32))),
  /**
   * Secret key of the session-id permutation (`shared/platform/id-permutation.ts`): ids are unique
   * whatever it is, unpredictable only while it is secret. Never change it once ids are issued (a
   * new key is a new permutation, whose ids may collide with the old one's). Required wherever
   * tokens are consumed; the local run generates one into its data folder.
   */
  SESSION_ID_KEY: z.optional(z.string().check(z.minLength(32))),
  /**
   * Key that seals webhook endpoints' signing secrets in the catalog table (AES-256-GCM,
   * `shared/webhooks/secret-sealer.ts`): a copy of the table holds no usable secret. Never change it
   * while endpoints exist (their secrets would no longer open). Required wherever endpoints are
   * managed; the local run generates one into its data folder.
   */
  WEBHOOK_SECRET_KEY: z.optional(z.string().check(z.minLength(32))),
  /**
   * AWS: the Secrets Manager secrets holding `PLAY_COOKIE_SECRET`, `SESSION_ID_KEY` and `WEBHOOK_SECRET_KEY`, read at the
   * first request of a container (`shared/platform/secrets.ts`) instead of resolved into the function's
   * configuration. A value given directly (locally, in tests) comes first.
   */
  PLAY_COOKIE_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
  SESSION_ID_KEY_ARN: z.optional(z.string().check(z.minLength(1))),
  WEBHOOK_SECRET_KEY_ARN: z.optional(z.string().check(z.minLength(1))),
  /**
   * The queue of webhook delivery attempts (SQS URL in AWS). Locally the runner gives the workers an
   * in-process queue instead (`overrideServices`), and this stays unset.
   */
  WEBHOOK_DELIVERY_QUEUE_URL: z.optional(z.string().check(z.minLength(1))),
  /**
   * The stream failures queue (SQS URL in AWS): where the events worker keeps a stream record it
   * cannot read (docs/runbook.md#webhook-records-unreadable). Locally the runner's failures list.
   */
  WEBHOOK_STREAM_FAILURES_QUEUE_URL: z.optional(z.string().check(z.minLength(1))),
  ...loggingVars,
});

/** The parsed environment the code reads. */
export type Env = z.output<typeof EnvSchema>;
/** The raw environment a deployment provides (the CDK `environment` prop is typed by this). */
export type EnvInput = { [K in keyof z.input<typeof EnvSchema>]: string | undefined };

let parsed: Env | undefined;

/** The environment, parsed once per container; a misconfiguration fails the cold start loudly. */
export function env(): Env {
  parsed ??= EnvSchema.parse(process.env);
  return parsed;
}

/**
 * The logger's settings, parsed by the same rules as {@link env} but on their own: the logger is
 * made when its module loads, before the local run and the tests have set the rest of the
 * environment, and this leaves {@link env}'s once-per-container parse to the first request.
 */
export function loggingEnv(): z.output<typeof LoggingSchema> {
  return LoggingSchema.parse(process.env);
}

/**
 * A variable a part reads that the schema leaves optional, because not every function gets it
 * (`env-parts.ts`): a table name, a secret. @throws naming it, where this function's environment lacks it.
 */
export function required<K extends keyof Env>(environment: Env, name: K): NonNullable<Env[K]> {
  const value = environment[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value as NonNullable<Env[K]>;
}

/** Forget the parsed environment (local tooling that changes `process.env` between runs). */
export function resetEnv(): void {
  parsed = undefined;
}

/** An environment variable that carries a physical table name. */
export type TableEnvVar = (typeof tables)[TableName]['envVar'];

/**
 * The table-name variables, each set to the physical name `physicalName` gives its table. Not
 * called by the functions' own code, so it adds nothing to a bundle.
 */
export function tableEnv(physicalName: (name: TableName, table: TableDefinition) => string): Record<TableEnvVar, string> {
  const names = Object.keys(tables) as TableName[];
  return Object.fromEntries(names.map((name) => [tables[name].envVar, physicalName(name, tables[name])])) as Record<TableEnvVar, string>;
}
