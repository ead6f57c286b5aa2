/**
 * What the service's stack can be given (from the CDK context, `config.ts`): identity provider,
 * domains, capacity, alarms, the console. A module of its own, so that the context parser and the
 * tests read the shape without the stack's constructs.
 */
import type { StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { RouteDefinition } from '../shared/platform/route.js';
import type { WorkerDefinition } from '../shared/platform/worker.js';
import type { AlarmThresholds } from './alarm-thresholds.js';
import type { AlarmTargets } from './alarm-topic.js';
import type { CapacityPlan } from './capacity.js';
import type { CustomDomain, ServiceEdgeProps } from './edge.js';

/** Where the org admins' bearer tokens come from (an OpenID Connect provider). */
export interface IdentityProvider {
  /** The `iss` of the tokens. */
  readonly issuer: string;
  /** The expected `aud` (or `client_id`); comma-separated for several. */
  readonly audience: string;
  /** JWKS URL; by default derived from the issuer. */
  readonly jwksUrl?: string;
}

/** Placeholder issuer of a synth without identity context (bearer operations answer 401). */
export const UNCONFIGURED_ISSUER = 'https://issuer.invalid';

export interface ServiceStackProps extends StackProps, Pick<ServiceEdgeProps, 'console'>, AlarmTargets {
  readonly identity: IdentityProvider;
  /** X-Ray active tracing of every function (context `tracing`; off by default: cost). */
  readonly tracing?: boolean;
  /** The operations to deploy; THE routes table unless a test passes another. */
  readonly routes?: readonly RouteDefinition[];
  /**
   * Where each worker's code is: `functions/<name>.ts` unless a test points elsewhere (a synth
   * without bundling reads only that the file exists).
   */
  readonly workerEntry?: (worker: WorkerDefinition) => string;
  readonly domain?: CustomDomain;
  readonly webAclArn?: string;
  /** Create the distribution's web ACL with this anonymous per-address limit (`infra/waf.ts`). */
  readonly wafRateLimit?: number;
  /** A custom domain of the HTTP API: CloudFront's origin, and the execute-api endpoint disabled. */
  readonly apiDomain?: CustomDomain;
  /** Edge throttles and reserved concurrency; `DEFAULT_CAPACITY` (capacity.ts) unless given. */
  readonly capacity?: CapacityPlan;
  /** Send alarms to this existing topic instead of a topic of the stack. */
  readonly alarmTopicArn?: string;
  readonly logRetention?: RetentionDays;
  /** Browser origins allowed to call `/api/mcp` (none by default; clients without `Origin` always pass). */
  readonly mcpAllowedOrigins?: readonly string[];
  /** What is deployed (a commit or release), reported by `GET /api/health` as `build_version`. */
  readonly buildVersion?: string;
  readonly alarmThresholds?: Partial<AlarmThresholds>;
  /**
   * Part of the distribution and the functions, so that raising it after a secret's value changed
   * makes CloudFormation update them and resolve the secrets again. Default 1.
   */
  readonly secretsRevision?: number;
  /**
   * false leaves cdk-nag's findings unacknowledged; the tests use it to check that every
   * acknowledgement in `infra/nag.ts` still matches a finding. Default true.
   */
  readonly acknowledgeNagFindings?: boolean;
}
