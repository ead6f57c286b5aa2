/**
 * The whole service as one stack: tables (from the tables table), one function per function of the
 * routes table, one per worker of the workers table with its trigger and queues, the HTTP API
 * behind a CloudFront distribution, the secrets, alarms and dashboard.
 */
import { Annotations, CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { routes as serviceRoutes } from '../shared/routes.js';
import type { EnvVar } from '../shared/platform/env-parts.js';
import type { RouteDefinition } from '../shared/platform/route.js';
import type { QueueName } from '../shared/platform/worker.js';
import { tables, type TableName } from '../shared/tables.js';
import { workers as serviceWorkers } from '../shared/workers.js';
import { alarmDestination } from './alarm-topic.js';
import { DEFAULT_CAPACITY, planErrors, planTotals, type CapacityPlan } from './capacity.js';
import { ServiceEdge } from './edge.js';
import { ServiceFunctions, type FunctionSettings } from './functions.js';
import { pascalCase } from './construct-ids.js';
import { ServiceApi } from './http-api.js';
import { acknowledgeFindings } from './nag.js';
import { ServiceMonitoring } from './monitoring.js';
import { UNCONFIGURED_ISSUER, type IdentityProvider, type ServiceStackProps } from './stack-props.js';
import { QUEUE_URL_VARS, ServiceQueues } from './queues.js';
import { DataTables, type ServiceTables } from './tables.js';
import { ServiceWorkers } from './workers.js';

/** The `service` of every log line and metric (the metrics' `service` dimension, which the alarms name). */
const SERVICE_NAME = 'game-session-token-service';

export class ServiceStack extends Stack {
  readonly routes: readonly RouteDefinition[];
  readonly capacity: CapacityPlan;
  readonly tables: ServiceTables;
  readonly functions: ServiceFunctions;
  /** The queues the workers send to and read, with their dead-letter queues. */
  readonly queues: ServiceQueues;
  readonly workers: ServiceWorkers;
  readonly api: ServiceApi;
  readonly edge: ServiceEdge;
  readonly monitoring: ServiceMonitoring;
  readonly originSecret: Secret;
  readonly playCookieSecret: Secret;
  /** Key of the session-id permutation: never rotated (a new key could repeat issued ids). */
  readonly sessionIdKey: Secret;
  /** Key that seals webhook endpoints' signing secrets: never rotated while endpoints exist. */
  readonly webhookSecretKey: Secret;
  readonly alarmTopic: ITopic;
  /** The stack's own alarm topic and its key (absent when alarms go to an existing topic). */
  readonly ownAlarmTopic?: { readonly topic: Topic; readonly key: Key };

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, { description: 'Game Session Token Service: single-use play tokens and the API keys that mint them', ...props });
    this.routes = props.routes ?? serviceRoutes;
    this.capacity = props.capacity ?? DEFAULT_CAPACITY;
    checkConfiguration(this, props.identity, this.routes, this.capacity);
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const secretsRevision = props.secretsRevision ?? 1;

    this.tables = new DataTables(this, 'Data').tables;
    this.queues = new ServiceQueues(this, 'Queues', { workers: serviceWorkers });
    const secrets = serviceSecrets(this);
    this.originSecret = secrets.originSecret;
    this.playCookieSecret = secrets.playCookieSecret;
    this.sessionIdKey = secrets.sessionIdKey;
    this.webhookSecretKey = secrets.webhookSecretKey;

    this.api = new ServiceApi(this, 'Http', { logRetention, capacity: this.capacity, domain: props.apiDomain });
    this.edge = new ServiceEdge(this, 'Edge', {
      routes: this.routes,
      originDomainName: this.api.originDomainName,
      originSecret: this.originSecret,
      domain: props.domain,
      webAclArn: props.webAclArn,
      wafRateLimit: props.wafRateLimit,
      secretsRevision,
      console: props.console,
    });
    this.functions = this.createFunctions(props, logRetention, secretsRevision);
    this.api.addOperationRoutes(this.routes, this.functions);
    this.workers = new ServiceWorkers(this, 'Workers', {
      workers: serviceWorkers,
      tables: this.tables,
      settings: this.functionSettings(props),
      queues: this.queues,
      secrets: this.readSecrets(),
      logRetention,
      secretsRevision,
      tracing: props.tracing ?? false,
      entry: props.workerEntry,
    });

    const alarms = alarmDestination(this, props, props.alarmTopicArn);
    this.alarmTopic = alarms.topic;
    this.ownAlarmTopic = alarms.own;
    this.monitoring = new ServiceMonitoring(this, 'Monitoring', {
      routes: this.routes,
      api: this.api.api,
      functions: this.functions,
      workers: this.workers,
      queues: this.queues,
      tables: this.tables,
      distribution: this.edge.distribution,
      serviceName: SERVICE_NAME,
      alarmTopic: this.alarmTopic,
      thresholds: props.alarmThresholds,
    });

    this.addOutputs(props);
    if (props.acknowledgeNagFindings !== false) acknowledgeFindings(this);
  }

  /** One function per function of the routes table, after the edge: they need its public URL. */
  private createFunctions(props: ServiceStackProps, logRetention: RetentionDays, secretsRevision: number): ServiceFunctions {
    return new ServiceFunctions(this, 'Functions', {
      routes: this.routes,
      tables: this.tables,
      settings: this.functionSettings(props),
      originSecret: this.originSecret,
      secrets: this.readSecrets(),
      queues: Object.fromEntries(
        Object.entries(QUEUE_URL_VARS).map(([name, variable]) => [variable, this.queues.queues[name as QueueName].queue]),
      ),
      logRetention,
      secretsRevision,
      createSessionConcurrency: this.capacity.createSessionConcurrency,
      tracing: props.tracing ?? false,
    });
  }

  /** The secrets the code reads at cold start, by the variable that names them. */
  private readSecrets(): Readonly<Partial<Record<EnvVar, Secret>>> {
    return {
      PLAY_COOKIE_SECRET_ARN: this.playCookieSecret,
      SESSION_ID_KEY_ARN: this.sessionIdKey,
      WEBHOOK_SECRET_KEY_ARN: this.webhookSecretKey,
    };
  }

  /**
   * Every function's configuration, one entry per variable of the env schema: listing the ones left
   * undefined too keeps the type checker asking about each new variable (and says why it is unset).
   */
  private functionSettings(props: ServiceStackProps): FunctionSettings {
    const settings: FunctionSettings = {
      TOKEN_RETENTION_DAYS: undefined, // the schema's default (docs/decisions.md#retention: 7 days)
      AUDIT_RETENTION_DAYS: undefined, // the schema's default (docs/decisions.md#retention: 90 days)
      DYNAMODB_PARTITION_WRITE_UNITS: undefined, // the schema's default: DynamoDB's 1,000 per partition
      JWT_ISSUER: props.identity.issuer,
      JWT_AUDIENCE: props.identity.audience,
      JWT_JWKS_URL: props.identity.jwksUrl,
      JWT_MAX_LIFETIME_SECONDS: undefined, // the schema's default (24 h)
      JWT_JWKS: undefined, // an inline JWKS: unit tests only
      BUILD_VERSION: props.buildVersion, // the health check's build_version (`-c buildVersion=`; `dev` when unset)
      DYNAMODB_ENDPOINT: undefined, // the local embedded DynamoDB only
      ORIGIN_VERIFY_SECRET_ARN: this.originSecret.secretArn,
      MCP_ALLOWED_ORIGINS: props.mcpAllowedOrigins?.join(','),
      PUBLIC_BASE_URL: this.edge.baseUrl,
      // The secrets' names only: the functions that use them read them at cold start (`shared/platform/secrets.ts`).
      PLAY_COOKIE_SECRET: undefined, // the local run only
      SESSION_ID_KEY: undefined, // the local run only
      WEBHOOK_SECRET_KEY: undefined, // the local run only
      PLAY_COOKIE_SECRET_ARN: this.playCookieSecret.secretArn,
      SESSION_ID_KEY_ARN: this.sessionIdKey.secretArn,
      WEBHOOK_SECRET_KEY_ARN: this.webhookSecretKey.secretArn,
      WEBHOOK_DELIVERY_QUEUE_URL: this.queues.queues['webhook-deliveries'].queue.queueUrl,
      WEBHOOK_STREAM_FAILURES_QUEUE_URL: this.queues.streamFailures.queueUrl,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };
    return settings;
  }

  /** What an operator needs after a deploy: the URL, where to point DNS, table names, alarm topic, dashboard. */
  private addOutputs(props: ServiceStackProps): void {
    new CfnOutput(this, 'Url', { description: 'Public base URL of the service', value: this.edge.baseUrl });
    new CfnOutput(this, 'DistributionId', {
      description: 'CloudFront distribution id (the us-east-1 edge alarm stack takes it: -c distributionId=<this>)',
      value: this.edge.distribution.distributionId,
    });
    new CfnOutput(this, 'DistributionDomainName', {
      description: 'CloudFront domain (point the custom domain here)',
      value: this.edge.distribution.distributionDomainName,
    });
    for (const name of Object.keys(tables) as TableName[]) {
      new CfnOutput(this, `${tables[name].id}TableName`, { description: `DynamoDB table: ${name}`, value: this.tables[name].tableName });
    }
    if (this.api.domainName) {
      new CfnOutput(this, 'ApiDomainTarget', {
        description: `Point ${props.apiDomain!.domainName} here (CNAME): CloudFront reaches the API on that name`,
        value: this.api.domainName.regionalDomainName,
      });
    }
    // What on-call needs for the dead letters (docs/runbook.md#webhook-dead-letters).
    for (const [name, { deadLetters }] of Object.entries(this.queues.queues)) {
      const id = `${pascalCase(name)}DeadLetters`;
      new CfnOutput(this, `${id}Url`, { description: `Dead-letter queue of ${name}`, value: deadLetters.queueUrl });
      new CfnOutput(this, `${id}Arn`, { description: `Dead-letter queue of ${name} (redrive source)`, value: deadLetters.queueArn });
    }
    new CfnOutput(this, 'WebhookStreamFailuresUrl', {
      description: 'Stream failures: the records the events worker could not read, and the batches the stream triggers gave up on',
      value: this.queues.streamFailures.queueUrl,
    });
    for (const [name, fn] of this.workers.functions) {
      new CfnOutput(this, `${pascalCase(name)}FunctionName`, { description: `The ${name} worker`, value: fn.functionName });
    }
    new CfnOutput(this, 'AlarmTopicArn', { description: 'SNS topic the alarms notify', value: this.alarmTopic.topicArn });
    new CfnOutput(this, 'DashboardName', { description: 'CloudWatch dashboard', value: this.monitoring.dashboard.dashboardName });
  }
}

/**
 * Refuse a capacity plan that cannot work. Warn, without failing, about settings a deploy survives
 * but users notice: throttles above the account's HTTP API quota (the quota is raised outside
 * CloudFormation), and no identity provider (an offline synth or a first deploy has none yet).
 */
function checkConfiguration(stack: Stack, identity: IdentityProvider, routes: readonly RouteDefinition[], capacity: CapacityPlan): void {
  const errors = planErrors(capacity);
  if (errors.length > 0) throw new Error(`Invalid capacity plan:\n  ${errors.join('\n  ')}`);
  const { total } = planTotals(routes, capacity);
  if (total > capacity.accountRateLimit) {
    Annotations.of(stack).addWarningV2(
      'gsts:capacity-quota',
      `The routes' throttles add up to ${total} requests/s, above the account's HTTP API quota of ${capacity.accountRateLimit} ` +
        `(capacity.accountRateLimit): until the quota (Service Quotas L-8A5B8E43) is raised to at least ${total} and accountRateLimit ` +
        'says so, a flood on one route class can take throughput the plan gives the others (docs/deploy.md, "Capacity").',
    );
  }
  if (identity.issuer === UNCONFIGURED_ISSUER) {
    Annotations.of(stack).addWarningV2(
      'gsts:identity-provider',
      'No identity provider configured (context jwtIssuer, jwtAudience): org-admin operations will answer 401 until it is set.',
    );
  }
}

/** The stack's four generated secrets. Created on the stack itself, so their logical ids stay put. */
function serviceSecrets(stack: Stack): { originSecret: Secret; playCookieSecret: Secret; sessionIdKey: Secret; webhookSecretKey: Secret } {
  // The header value CloudFront sends to the origin; functions refuse requests without it.
  const originSecret = new Secret(stack, 'OriginVerifySecret', {
    description: 'Value of the x-origin-verify header CloudFront adds to origin requests',
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  // HMAC key of the play cookie; resolved into the functions' configuration at deploy time.
  const playCookieSecret = new Secret(stack, 'PlayCookieSecret', {
    description: 'HMAC key of the play cookie (play pages)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  // Kept whatever happens to the stack: a new key is a new permutation, whose ids may collide with
  // ids already issued under this one (shared/platform/id-permutation.ts).
  const sessionIdKey = new Secret(stack, 'SessionIdKey', {
    description: 'Key of the session-id permutation (never rotate: ids issued under another key may repeat)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // Kept whatever happens to the stack: the endpoints' secrets sealed under it open only with it.
  const webhookSecretKey = new Secret(stack, 'WebhookSecretKey', {
    description: 'Key sealing webhook endpoints’ signing secrets (never rotate while endpoints exist: their secrets would not open)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  return { originSecret, playCookieSecret, sessionIdKey, webhookSecretKey };
}
