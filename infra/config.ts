/**
 * The deployment's parameters, read from CDK context (`cdk deploy -c jwtIssuer=...` or the
 * `context` of cdk.json) and checked before anything is built, so a typo fails the synth with a
 * message instead of deploying a broken service.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { z } from 'zod';
import { UNCONFIGURED_ISSUER, type ServiceStackProps } from './stack.js';

/** Name of the stack when `stackName` is not given. */
export const DEFAULT_STACK_NAME = 'GameSessionTokenService';

const optionalString = z.string().trim().min(1).optional();

/** Every context parameter the app reads (README, "Deploy"). */
export const DeployContextSchema = z
  .object({
    /** OIDC issuer of the org admins' bearer tokens (`iss`), e.g. a Cognito user pool URL. */
    jwtIssuer: z.string().url().optional(),
    /** Expected `aud` (or `client_id`) of those tokens; comma-separated for several. */
    jwtAudience: optionalString,
    /** JWKS URL of the issuer; by default the issuer's `/.well-known/jwks.json`. */
    jwtJwksUrl: z.string().url().optional(),
    /** Custom domain of the public endpoint (needs `certificateArn`). */
    domainName: optionalString,
    /** ACM certificate for `domainName`, in us-east-1. */
    certificateArn: z
      .string()
      .regex(/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN in us-east-1')
      .optional(),
    /** Email address subscribed to the alarm topic (confirm the subscription mail). */
    alarmEmail: z.string().email().optional(),
    /** An existing SNS topic to send alarms to instead of the stack's own. */
    alarmTopicArn: z
      .string()
      .regex(/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]+$/, 'must be an SNS topic ARN')
      .optional(),
    /** An AWS WAF web ACL (CLOUDFRONT scope) to attach to the distribution. */
    webAclArn: z
      .string()
      .regex(/^arn:aws[\w-]*:wafv2:us-east-1:\d{12}:global\/webacl\/.+$/, 'must be a CLOUDFRONT-scope WAFv2 web ACL ARN')
      .optional(),
    /**
     * Browser origins allowed to call `/api/mcp`, comma-separated (`https://agent.example`); none by
     * default. Server-side MCP clients send no `Origin` and are not affected.
     */
    mcpAllowedOrigins: z
      .string()
      .transform((list) =>
        list
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s,]+$/, 'must be origins: scheme://host[:port], comma-separated')))
      .optional(),
    /** Days logs are kept: one of CloudWatch Logs' retention values (1, 3, 5, 7, 14, 30, 60, 90, ...). */
    logRetentionDays: z.coerce
      .number()
      .refine((days) => Object.values(RetentionDays).includes(days), 'must be a CloudWatch Logs retention value (1, 3, 5, 7, 14, 30, ...)')
      .default(30),
    /**
     * Raise it (2, 3, ...) when deploying after putting a new secret value: CloudFormation resolves
     * secret references only when a resource changes, and this number is part of the resources.
     */
    secretsRevision: z.coerce.number().int().positive().default(1),
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/)
      .default(DEFAULT_STACK_NAME),
  })
  .refine((c) => !c.domainName === !c.certificateArn, {
    message: 'domainName and certificateArn go together: give both or neither',
    path: ['certificateArn'],
  });

export type DeployContext = z.output<typeof DeployContextSchema>;

/** Keys of the context the app reads. */
export const CONTEXT_KEYS = Object.keys(DeployContextSchema.shape) as (keyof DeployContext)[];

/**
 * Parse the context parameters (`get` reads one, e.g. `app.node.tryGetContext`). Empty strings count
 * as absent, so `-c domainName=` switches an option off.
 */
export function readDeployContext(get: (key: string) => unknown): DeployContext {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, get(key)]).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = DeployContextSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || 'context'}: ${issue.message}`);
    throw new Error(`Invalid deployment context:\n${problems.join('\n')}`);
  }
  return parsed.data;
}

/** The stack's properties for a deployment context. */
export function serviceStackProps(context: DeployContext, env: ServiceStackProps['env']): ServiceStackProps {
  return {
    env,
    identity: {
      issuer: context.jwtIssuer ?? UNCONFIGURED_ISSUER,
      audience: context.jwtAudience ?? 'game-session-token-service',
      jwksUrl: context.jwtJwksUrl,
    },
    domain:
      context.domainName && context.certificateArn ? { domainName: context.domainName, certificateArn: context.certificateArn } : undefined,
    webAclArn: context.webAclArn,
    alarmTopicArn: context.alarmTopicArn,
    alarmEmail: context.alarmEmail,
    logRetention: context.logRetentionDays as RetentionDays,
    mcpAllowedOrigins: context.mcpAllowedOrigins,
    secretsRevision: context.secretsRevision,
  };
}
