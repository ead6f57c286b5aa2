/**
 * THE environment: one zod schema types both what the functions parse from `process.env` at
 * start-up and the `environment` prop the CDK stack hands every function.
 */
import * as z from 'zod';
import { tables, type TableName } from './tables.js';

const tableNameVars = Object.fromEntries(Object.values(tables).map((t) => [t.envVar, z.string().min(3)])) as {
  [K in TableName as (typeof tables)[K]['envVar']]: z.ZodString;
};

const positiveInt = z.coerce.number().int().positive();

export const EnvSchema = z.object({
  ...tableNameVars,
  /** Days a token item outlives its `expires_at` before TTL removes it (decisions: 7). */
  TOKEN_RETENTION_DAYS: positiveInt.default(7),
  /** Days an audit record is kept (decisions: 90). */
  AUDIT_RETENTION_DAYS: positiveInt.default(90),
  /** OIDC issuer whose JWTs authenticate org admins. */
  JWT_ISSUER: z.string().min(1).default('https://issuer.invalid'),
  /** Expected `aud` (or `client_id`) of admin JWTs; comma-separated for several. */
  JWT_AUDIENCE: z.string().min(1).default('game-session-token-service'),
  /** JWKS URL of the issuer; fetched once per container. */
  JWT_JWKS_URL: z.string().url().optional(),
  /** The issuer's JWKS inline (local development issuer): loaded without any network call. */
  JWT_JWKS: z.string().optional(),
  /** Local only: the embedded DynamoDB endpoint. Absent in AWS. */
  DYNAMODB_ENDPOINT: z.string().url().optional(),
  /**
   * AWS only: the Secrets Manager secret holding the header value CloudFront adds to every origin
   * request; when set, a request without it is refused (403) by `shared/http/origin-verify.ts`.
   */
  ORIGIN_VERIFY_SECRET_ARN: z.string().min(1).optional(),
  /** Public base URL, used to build play links. An `https:` URL marks the play cookie `Secure`. */
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:3000'),
  /**
   * HMAC secret of the play cookie (a refresh keeps playing a consumed session). Required wherever
   * play pages serve tokened games; the local run generates one into its data folder.
   */
  PLAY_COOKIE_SECRET: z.string().min(32).optional(),
  POWERTOOLS_SERVICE_NAME: z.string().default('game-session-token-service'),
  POWERTOOLS_LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
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

/** Forget the parsed environment (local tooling that changes `process.env` between runs). */
export function resetEnv(): void {
  parsed = undefined;
}
