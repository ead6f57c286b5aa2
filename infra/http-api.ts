/**
 * The HTTP API (API Gateway v2): one route per operation of THE routes table, on the operation's
 * origin path (`originPath()`), each integrated with its function and throttled by its class of
 * the capacity plan (`infra/capacity.ts`). Clients never call it directly: CloudFront is the public
 * endpoint, and every function refuses requests without the origin secret.
 */
import {
  CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
  type HttpRoute,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { answersHead } from '../shared/routes.js';
import { originPath, type RouteDefinition } from '../shared/platform/route.js';
import { routeThrottles, type CapacityPlan } from './capacity.js';
import type { CustomDomain } from './edge.js';
import { type ServiceFunctions } from './functions.js';
import { pascalCase } from './construct-ids.js';

export interface ServiceApiProps {
  readonly logRetention: RetentionDays;
  /** Per-route throttles by capacity class; per-key limits are the service's own (rate-limit windows). */
  readonly capacity: CapacityPlan;
  /**
   * A custom domain of the API (certificate in the stack's region). With it, CloudFront reaches the
   * API there and the default execute-api endpoint is disabled: API Gateway refuses requests to it
   * (403) before any function runs.
   */
  readonly domain?: CustomDomain;
}

/**
 * Access log fields (HTTP API context variables), one JSON object per request. No time (each log
 * event has its own timestamp) and no protocol (the one CloudFront chose, not the viewer's): every
 * byte is paid per request (BENCHMARKS.md, "Cost").
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  userAgent: '$context.identity.userAgent',
};

export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The API Gateway route of each operation. */
  readonly routes = new Map<string, HttpRoute>();
  readonly accessLogs: LogGroup;
  /** The API's custom domain, when one is configured. */
  readonly domainName?: DomainName;
  /** Where CloudFront sends origin requests: the custom domain, or else the execute-api endpoint. */
  readonly originDomainName: string;
  private readonly capacity: CapacityPlan;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.capacity = props.capacity;
    this.api = new HttpApi(this, 'Api', {
      description: 'Game Session Token Service origin (reached through CloudFront only)',
      // The stage is created below, with access logs and throttling, which the default stage lacks.
      createDefaultStage: false,
      disableExecuteApiEndpoint: props.domain !== undefined,
    });
    if (props.domain) {
      this.domainName = new DomainName(this, 'Domain', {
        domainName: props.domain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
    }
    const stack = Stack.of(this);
    this.originDomainName = props.domain?.domainName ?? `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const fallback = props.capacity.routes.meta;
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // Every route gets its own throttle below; anything else gets the smallest budget.
      throttle: { rateLimit: fallback.rate, burstLimit: fallback.burst },
      domainMapping: this.domainName ? { domainName: this.domainName } : undefined,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /**
   * Add one route per operation, integrated with the function serving it. Separate from the
   * constructor because the functions are built after the distribution (they are told its URL),
   * and the distribution needs this API first.
   */
  addOperationRoutes(routes: readonly RouteDefinition[], functions: ServiceFunctions): void {
    const integrations = new Map<string, HttpLambdaIntegration>();
    const every: HttpRoute[] = [];
    for (const route of routes) {
      let integration = integrations.get(route.function);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascalCase(route.function)}Integration`, functions.forRoute(route));
        integrations.set(route.function, integration);
      }
      // A page answers HEAD too (its GET without the body), on a route of its own with the stage's
      // default (smallest) throttle: a HEAD is a link checker's, not a player's.
      const methods = answersHead(route) ? [HttpMethod.GET, HttpMethod.HEAD] : [HttpMethod[route.method]];
      const added = this.api.addRoutes({ path: originPath(route), methods, integration });
      this.routes.set(route.operation, added[0]!);
      every.push(...added);
    }
    // Each route is a token bucket of its own, sized by its class: a flood on anonymous routes
    // drains their buckets, not the partners'. CloudFormation refuses settings for a route that does
    // not exist yet, so the stage waits for the routes.
    const settings = Object.fromEntries(
      [...routeThrottles(routes, this.capacity)].map(([key, t]) => [key, { ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst }]),
    );
    (this.stage.node.defaultChild as CfnStage).routeSettings = settings;
    for (const route of every) this.stage.node.addDependency(route);
  }
}
