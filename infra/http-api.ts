/**
 * The HTTP API (API Gateway v2): one route per operation of THE routes table, on the operation's
 * origin path (`originPath()`), each integrated with its function. Clients never call it directly:
 * CloudFront is the public endpoint, and every function refuses requests without the origin secret.
 */
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination, type HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { originPath, type RouteDefinition } from '../shared/routes.js';
import { pascalCase, type ServiceFunctions } from './functions.js';

export interface ServiceApiProps {
  readonly logRetention: RetentionDays;
  /**
   * Stage-wide throttle, a ceiling against floods well above real traffic; per-key limits are
   * the service's own (rate-limit windows).
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
}

/** Access log fields (HTTP API context variables), one JSON object per request. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
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

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      description: 'Game Session Token Service origin (reached through CloudFront only)',
      // The stage is created below, with access logs and throttling, which the default stage lacks.
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1000, burstLimit: 2000 },
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
    for (const route of routes) {
      let integration = integrations.get(route.function);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascalCase(route.function)}Integration`, functions.forRoute(route));
        integrations.set(route.function, integration);
      }
      const [added] = this.api.addRoutes({ path: originPath(route), methods: [HttpMethod[route.method]], integration });
      this.routes.set(route.operation, added!);
    }
  }
}
