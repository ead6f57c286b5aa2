/**
 * The deployment's parameters, read from CDK context (`cdk deploy -c jwtIssuer=...` or the
 * `context` of cdk.json) and checked before anything is built, so a typo fails the synth with a
 * message instead of deploying a broken service.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { z } from 'zod';
import { AlarmThresholdsSchema } from './alarm-thresholds.js';
import { hasSubscriber, type AlarmTargets } from './alarm-topic.js';
import { DEFAULT_CAPACITY, type CapacityPlan } from './capacity.js';
import type { ConsoleSettings } from './console-site.js';
import { contextObject } from './context-json.js';
import { UNCONFIGURED_ISSUER, type ServiceStackProps } from './stack-props.js';

/** Name of the stack when `stackName` is not given. */

/** Whether X-Ray active tracing is on unless the context says otherwise (cost: BENCHMARKS.md, "Cost"). */
export const TRACING_DEFAULT = false;
export const DEFAULT_STACK_NAME = 'GameSessionTokenService';

/** A comma-separated list of origins in a context value, each matching `pattern`. */
function originList(pattern: RegExp, message: string) {
  return z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(pattern, message)));
}

const optionalString = z.string().trim().min(1).optional();
const count = z.coerce.number().int().positive();
/** `-c name=true` arrives as the string 'true'; cdk.json may hold a boolean. */
const flag = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** One class's throttle; either figure may be left to the default. */
const ThrottleSchema = z.strictObject({ rate: count.optional(), burst: count.optional() });

/**
 * Overrides of the capacity plan (`infra/capacity.ts`); `-c capacity='{"play":{"rate":500}}'`
 * passes it as JSON, cdk.json as an object. Anything left out keeps its default.
 */
const CapacitySchema = z.preprocess(
  contextObject,
  z.strictObject({
    key: ThrottleSchema.optional(),
    token: ThrottleSchema.optional(),
    play: ThrottleSchema.optional(),
    admin: ThrottleSchema.optional(),
    meta: ThrottleSchema.optional(),
    accountRateLimit: count.optional(),
    createSessionConcurrency: z.union([z.literal('none'), count]).optional(),
  }),
);

/** Every context parameter the app reads (docs/deploy.md, "Context parameters"). */
export const DeployContextSchema = z
  .object({
    /** OIDC issuer of the org admins' bearer tokens (`iss`), e.g. a Cognito user pool URL. */
    jwtIssuer: z.string().url().optional(),
    /** Expected `aud` (or `client_id`) of those tokens; comma-separated for several. */
    jwtAudience: optionalString,
    /** JWKS URL of the issuer; by default the issuer's `/.well-known/jwks.json`. */
    jwtJwksUrl: z.string().url().optional(),
    /**
     * The admin console's public client id at the identity provider (docs/deploy.md, "Admin console"):
     * given, the stack serves the console under `/console/`; absent, there is no console.
     */
    consoleClientId: optionalString,
    /** The issuer the console signs in with; `jwtIssuer` by default. */
    consoleIssuer: z.string().url().optional(),
    /** The audience the console asks for (Auth0's `audience`); the first of `jwtAudience` by default. */
    consoleAudience: optionalString,
    /** More origins the console's browser must reach besides the issuer's, comma-separated (Cognito: the hosted UI domain). */
    consoleConnectOrigins: originList(/^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be https origins, comma-separated').optional(),
    /** Custom domain of the public endpoint (needs `certificateArn`). */
    domainName: optionalString,
    /** ACM certificate for `domainName`, in us-east-1. */
    certificateArn: z
      .string()
      .regex(/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN in us-east-1')
      .optional(),
    /**
     * Custom domain of the HTTP API itself (needs `apiCertificateArn`): CloudFront reaches the API on
     * it and the default execute-api endpoint is disabled (docs/deploy.md, "The execute-api endpoint").
     */
    apiDomainName: optionalString,
    /** ACM certificate for `apiDomainName`, in the stack's own region (API Gateway's rule). */
    apiCertificateArn: z
      .string()
      .regex(/^arn:aws[\w-]*:acm:[\w-]+:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN')
      .optional(),
    /** Email address subscribed to the alarm topic (confirm the subscription mail). */
    alarmEmail: z.string().email().optional(),
    /**
     * An HTTPS endpoint subscribed to the alarm topic, e.g. a chat webhook relay (it must confirm the
     * SNS subscription).
     */
    alarmWebhookUrl: z
      .string()
      .url()
      .regex(/^https:\/\//, 'must be an https:// URL')
      .optional(),
    /**
     * A Slack channel AWS Chatbot posts the alarms to: the workspace id (shown by Chatbot's console
     * once the workspace is authorized there) and the channel id; the two go together.
     */
    alarmSlackWorkspaceId: z
      .string()
      .regex(/^[A-Z0-9]{9,15}$/, 'must be a Slack workspace id (e.g. T07EA123LEP)')
      .optional(),
    alarmSlackChannelId: z
      .string()
      .regex(/^[A-Z0-9]{9,15}$/, 'must be a Slack channel id (e.g. C07EZ1ABC23)')
      .optional(),
    /**
     * The service stack's CloudFront distribution (its `DistributionId` output): outside us-east-1,
     * creates the `-EdgeAlarms` stack in us-east-1 with the CloudFront 5xx alarm (docs/deploy.md).
     */
    distributionId: z
      .string()
      .regex(/^[A-Z0-9]{10,20}$/, 'must be a CloudFront distribution id (e.g. E2QWRUHAPOMQZL)')
      .optional(),
    /**
     * `true` deploys without any alarm target (alarmEmail, alarmWebhookUrl, Slack or alarmTopicArn): alarms
     * then notify nobody. An explicit waiver, so that this is never an accident.
     */
    noAlarmTarget: flag.optional(),
    /** Overrides of the alarms' thresholds, JSON (docs/deploy.md, "Alarms": each default and why). */
    alarms: AlarmThresholdsSchema.optional(),
    /**
     * CloudFormation refuses to delete the stack (and the EdgeWaf stack) until it is switched off
     * again; recommended for production. The tables are retained either way.
     */
    terminationProtection: flag.default(false),
    /**
     * X-Ray active tracing of every function. Off by default: Lambda samples a fixed 1 request a
     * second plus 5%, $0.75 per million API lifecycles (BENCHMARKS.md, "Cost"); switch it on for an
     * investigation (docs/deploy.md, "Tracing").
     */
    tracing: flag.default(TRACING_DEFAULT),
    /** What is deployed, reported by `GET /api/health` (`-c buildVersion=$(git rev-parse --short HEAD)`). */
    buildVersion: z
      .string()
      .regex(/^[\w.+-]{1,64}$/, 'must be 1 to 64 letters, digits, `.`, `_`, `+` or `-`')
      .optional(),
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
    mcpAllowedOrigins: originList(/^https?:\/\/[^/\s,]+$/, 'must be origins: scheme://host[:port], comma-separated').optional(),
    /**
     * Requests one address may send in 5 minutes without an API key or bearer token before the edge
     * answers 429: creates a WAF web ACL with that rate-based rule (docs/deploy.md, "WAF"). Outside
     * us-east-1 the web ACL is a stack of its own, attached with `webAclArn` once deployed.
     */
    wafRateLimit: z.coerce.number().int().min(10).max(2_000_000_000).optional(),
    /** The capacity plan's overrides (docs/deploy.md, "Capacity"). */
    capacity: CapacitySchema.optional(),
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
  .refine((c) => !c.consoleClientId || c.consoleIssuer || c.jwtIssuer, {
    message: 'the console needs an issuer to sign in with: give consoleIssuer or jwtIssuer',
    path: ['consoleIssuer'],
  })
  .refine((c) => !c.domainName === !c.certificateArn, {
    message: 'domainName and certificateArn go together: give both or neither',
    path: ['certificateArn'],
  })
  .refine((c) => !c.apiDomainName === !c.apiCertificateArn, {
    message: 'apiDomainName and apiCertificateArn go together: give both or neither',
    path: ['apiCertificateArn'],
  })
  .refine((c) => !c.alarmSlackWorkspaceId === !c.alarmSlackChannelId, {
    message: 'alarmSlackWorkspaceId and alarmSlackChannelId go together: give both or neither',
    path: ['alarmSlackChannelId'],
  })
  .refine((c) => hasSubscriber(alarmTargets(c)) || c.alarmTopicArn || c.noAlarmTarget === true, {
    message:
      'alarms need someone to notify: give alarmEmail, alarmWebhookUrl, alarmSlackWorkspaceId with alarmSlackChannelId, or alarmTopicArn, ' +
      'or noAlarmTarget=true to deploy alarms that notify nobody',
    path: ['alarmEmail'],
  });

export type DeployContext = z.output<typeof DeployContextSchema>;

/** Keys of the context the app reads. */
const CONTEXT_KEYS = Object.keys(DeployContextSchema.shape) as (keyof DeployContext)[];

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
    terminationProtection: context.terminationProtection,
    tracing: context.tracing,
    identity: {
      issuer: context.jwtIssuer ?? UNCONFIGURED_ISSUER,
      audience: context.jwtAudience ?? 'game-session-token-service',
      jwksUrl: context.jwtJwksUrl,
    },
    domain:
      context.domainName && context.certificateArn ? { domainName: context.domainName, certificateArn: context.certificateArn } : undefined,
    console: consoleSettings(context),
    webAclArn: context.webAclArn,
    wafRateLimit: context.wafRateLimit,
    apiDomain:
      context.apiDomainName && context.apiCertificateArn
        ? { domainName: context.apiDomainName, certificateArn: context.apiCertificateArn }
        : undefined,
    capacity: capacityPlan(context.capacity),
    alarmTopicArn: context.alarmTopicArn,
    ...alarmTargets(context),
    alarmThresholds: context.alarms,
    logRetention: context.logRetentionDays as RetentionDays,
    mcpAllowedOrigins: context.mcpAllowedOrigins,
    buildVersion: context.buildVersion,
    secretsRevision: context.secretsRevision,
  };
}

/** Who the context's alarm keys notify (the Slack channel only with both of its ids). */
function alarmTargets(context: {
  readonly alarmEmail?: string | undefined;
  readonly alarmWebhookUrl?: string | undefined;
  readonly alarmSlackWorkspaceId?: string | undefined;
  readonly alarmSlackChannelId?: string | undefined;
}): AlarmTargets {
  const { alarmEmail, alarmWebhookUrl, alarmSlackWorkspaceId: workspaceId, alarmSlackChannelId: channelId } = context;
  return { alarmEmail, alarmWebhookUrl, alarmSlack: workspaceId && channelId ? { workspaceId, channelId } : undefined };
}

/** The console's sign-in settings, from the context's console keys and the JWT settings they default to. */
function consoleSettings(context: DeployContext): ConsoleSettings | undefined {
  if (!context.consoleClientId) return undefined;
  return {
    issuer: (context.consoleIssuer ?? context.jwtIssuer)!,
    clientId: context.consoleClientId,
    audience: context.consoleAudience ?? context.jwtAudience?.split(',')[0]?.trim() ?? 'game-session-token-service',
    connectOrigins: context.consoleConnectOrigins,
  };
}

/** The default capacity plan with the context's overrides applied, per class and figure. */
export function capacityPlan(overrides: DeployContext['capacity']): CapacityPlan {
  const routes = { ...DEFAULT_CAPACITY.routes };
  for (const name of Object.keys(routes) as (keyof typeof routes)[]) {
    const given = overrides?.[name];
    routes[name] = { rate: given?.rate ?? routes[name].rate, burst: given?.burst ?? routes[name].burst };
  }
  return {
    routes,
    accountRateLimit: overrides?.accountRateLimit ?? DEFAULT_CAPACITY.accountRateLimit,
    createSessionConcurrency: overrides?.createSessionConcurrency ?? DEFAULT_CAPACITY.createSessionConcurrency,
  };
}
