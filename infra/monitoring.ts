/**
 * Operations: alarms that notify an SNS topic, and one CloudWatch dashboard. What is watched is
 * derived from the same tables as everything else: one function alarm pair per function of the
 * routes table, DynamoDB system errors for exactly the operations the routes declare per table.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { REQUEST_ANSWERED } from '../shared/http/log-messages.js';
import type { DynamoAction, RouteDefinition } from '../shared/operations/operation.js';
import { tables, type TableName } from '../shared/tables.js';
import { pascalCase, type ServiceFunctions } from './functions.js';
import { serviceAccess } from './permissions.js';
import type { ServiceTables } from './tables.js';

/** Namespace of the service's own metrics (from log metric filters). */
export const METRIC_NAMESPACE = 'GameSessionTokenService';
/** Requests answered 429, counted from the request log line every function writes. */
export const RATE_LIMIT_METRIC = 'RateLimitRejections';

/** When alarms fire; every value has a default. */
export interface AlarmThresholds {
  /** Share of API requests answered 5xx, in percent, over two consecutive 5-minute periods. */
  readonly serverErrorRatePercent: number;
  /** 429 answers in 5 minutes, all keys together. */
  readonly rateLimitRejections: number;
}

const DEFAULT_THRESHOLDS: AlarmThresholds = { serverErrorRatePercent: 5, rateLimitRejections: 100 };
const PERIOD = Duration.minutes(5);

/** CloudWatch's operation dimension for each action the routes table may declare. */
const OPERATIONS: Record<DynamoAction, Operation> = {
  GetItem: Operation.GET_ITEM,
  PutItem: Operation.PUT_ITEM,
  UpdateItem: Operation.UPDATE_ITEM,
  DeleteItem: Operation.DELETE_ITEM,
  Query: Operation.QUERY,
  BatchGetItem: Operation.BATCH_GET_ITEM,
};

export interface ServiceMonitoringProps {
  readonly routes: readonly RouteDefinition[];
  readonly api: HttpApi;
  readonly functions: ServiceFunctions;
  readonly tables: ServiceTables;
  /** Where alarms (and their recovery) are sent. */
  readonly alarmTopic: ITopic;
  readonly thresholds?: Partial<AlarmThresholds>;
}

export class ServiceMonitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  /** Every alarm notifies the topic, and again when it recovers. */
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const thresholds = { ...DEFAULT_THRESHOLDS, ...props.thresholds };
    this.action = new SnsAction(props.alarmTopic);
    const api = this.watchApi(props.api, thresholds);
    this.watchFunctions(props.functions);
    this.watchTables(props.routes, props.tables);
    const rateLimited = this.watchRateLimits(props, thresholds);
    this.dashboard = this.buildDashboard(props, { ...api, rateLimited });
  }

  /** An alarm on `metric` that notifies the topic when it fires and when it recovers; listed on the dashboard. */
  private alarm(alarmId: string, metric: IMetric, description: string, threshold: number, periods = 1): Alarm {
    const created = new Alarm(this, alarmId, {
      metric,
      threshold,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    created.addAlarmAction(this.action);
    created.addOkAction(this.action);
    this.alarms.push(created);
    return created;
  }

  /**
   * The share of API requests answered 5xx (handled 500s and integration failures alike), over two
   * periods so one bad deploy minute does not page. Returns the metrics the dashboard also plots.
   */
  private watchApi(api: HttpApi, thresholds: AlarmThresholds): ApiMetrics {
    const requests = api.metricCount({ statistic: 'Sum', period: PERIOD });
    const serverErrors = api.metricServerError({ statistic: 'Sum', period: PERIOD });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      label: '5xx rate (%)',
      period: PERIOD,
    });
    this.alarm(
      'Api5xxRate',
      errorRate,
      `More than ${thresholds.serverErrorRatePercent}% of API requests answered 5xx`,
      thresholds.serverErrorRatePercent,
      2,
    );
    return { requests, serverErrors, errorRate };
  }

  /** Unhandled failures (crashes, timeouts) and throttling, per function: neither reaches the API's 5xx count reliably. */
  private watchFunctions(functions: ServiceFunctions): void {
    for (const [name, fn] of functions.functions) {
      const id = pascalCase(name);
      this.alarm(
        `${id}Errors`,
        fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
        `Function ${name} failed (unhandled error or timeout)`,
        1,
      );
      this.alarm(`${id}Throttles`, fn.metricThrottles({ statistic: 'Sum', period: PERIOD }), `Function ${name} was throttled`, 1);
    }
  }

  /**
   * Throttled reads/writes per table, and system errors of exactly the operations the routes perform
   * on it: an operation no route uses would only add an alarm that can never fire.
   */
  private watchTables(routes: readonly RouteDefinition[], serviceTables: ServiceTables): void {
    const access = serviceAccess(routes);
    for (const [name, table] of Object.entries(serviceTables) as [TableName, ServiceTables[TableName]][]) {
      const id = tables[name].id;
      const throttles = new MathExpression({
        expression: 'reads + writes',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
          writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
        },
        label: `${name} throttle events`,
        period: PERIOD,
      });
      this.alarm(`${id}Throttles`, throttles, `DynamoDB table ${name} throttled requests`, 1);
      const operations = (access[name] ?? []).map((action) => OPERATIONS[action]);
      if (operations.length > 0) {
        const systemErrors = table.metricSystemErrorsForOperations({ operations, statistic: 'Sum', period: PERIOD });
        this.alarm(`${id}SystemErrors`, systemErrors, `DynamoDB table ${name} returned system errors (HTTP 500)`, 1);
      }
    }
  }

  /** 429 answers have no AWS metric: the service's own, from the functions' logs, and its alarm. */
  private watchRateLimits(props: ServiceMonitoringProps, thresholds: AlarmThresholds): IMetric {
    const rateLimited = new Metric({ namespace: METRIC_NAMESPACE, metricName: RATE_LIMIT_METRIC, statistic: 'Sum', period: PERIOD });

    // Rate-limit rejections: counted from the request log line (`REQUEST_ANSWERED`, `"status":429`)
    // of every function, summed into one metric, so a burst from any key shows up as a spike.
    for (const [name, logGroup] of props.functions.logGroups) {
      new MetricFilter(this, `${pascalCase(name)}RateLimited`, {
        logGroup,
        metricNamespace: METRIC_NAMESPACE,
        metricName: RATE_LIMIT_METRIC,
        filterPattern: FilterPattern.all(
          FilterPattern.stringValue('$.message', '=', REQUEST_ANSWERED),
          FilterPattern.numberValue('$.status', '=', 429),
        ),
        metricValue: '1',
      });
    }
    this.alarm(
      'RateLimitSpike',
      rateLimited,
      `At least ${thresholds.rateLimitRejections} requests answered 429 in 5 minutes`,
      thresholds.rateLimitRejections,
    );
    return rateLimited;
  }

  /**
   * One dashboard, a row per concern: alarm states on top (what needs attention now), then the API,
   * the functions and the tables (where to look next).
   */
  private buildDashboard(props: ServiceMonitoringProps, metrics: ApiMetrics & { rateLimited: IMetric }): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    const rows: IWidget[][] = [
      [
        new TextWidget({ markdown: '# Game Session Token Service', width: 24, height: 1 }),
        new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }),
      ],
      apiRow(props.api, metrics),
      ...functionRows(props.functions, metrics.rateLimited),
      ...tableRows(props.tables),
    ];
    for (const row of rows) dashboard.addWidgets(...row);
    return dashboard;
  }
}

/** The API's own metrics, which the 5xx alarm and the dashboard share. */
interface ApiMetrics {
  readonly requests: IMetric;
  readonly serverErrors: IMetric;
  readonly errorRate: IMetric;
}

/** Requests and errors, the 5xx rate the alarm watches, and latency. */
function apiRow(api: HttpApi, metrics: ApiMetrics): IWidget[] {
  return [
    new GraphWidget({
      title: 'API requests and errors',
      width: 8,
      left: [metrics.requests, api.metricClientError({ statistic: 'Sum', period: PERIOD }), metrics.serverErrors],
    }),
    new GraphWidget({ title: 'API 5xx rate (%)', width: 8, left: [metrics.errorRate] }),
    new GraphWidget({
      title: 'API latency (ms)',
      width: 8,
      left: [api.metricLatency({ statistic: 'p50', period: PERIOD }), api.metricLatency({ statistic: 'p99', period: PERIOD })],
    }),
  ];
}

/** Rate-limit rejections beside the functions' duration, then invocations, errors, throttles, concurrency: one line per function. */
function functionRows(functions: ServiceFunctions, rateLimited: IMetric): IWidget[][] {
  const fns = [...functions.functions];
  const perFunction = (title: string, metric: (fn: (typeof fns)[number][1], label: string) => IMetric) =>
    new GraphWidget({ title, width: 12, left: fns.map(([name, fn]) => metric(fn, name)) });
  return [
    [
      new GraphWidget({ title: 'Rate-limit rejections (429)', width: 12, left: [rateLimited] }),
      perFunction('Function duration p99 (ms)', (fn, label) => fn.metricDuration({ statistic: 'p99', period: PERIOD, label })),
    ],
    [
      perFunction('Function invocations', (fn, label) => fn.metricInvocations({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Function errors', (fn, label) => fn.metricErrors({ statistic: 'Sum', period: PERIOD, label })),
    ],
    [
      perFunction('Function throttles', (fn, label) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Function concurrency (max)', (fn, label) =>
        fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD, label }),
      ),
    ],
  ];
}

/** Capacity consumed and throttle events, reads beside writes, one line per table. */
function tableRows(serviceTables: ServiceTables): IWidget[][] {
  const perTable = (label: string, metricName: string) =>
    new GraphWidget({
      title: label,
      width: 12,
      left: Object.entries(serviceTables).map(([name, table]) =>
        table.metric(metricName, { statistic: 'Sum', period: PERIOD, label: name }),
      ),
    });
  return [
    [
      perTable('DynamoDB read capacity consumed', 'ConsumedReadCapacityUnits'),
      perTable('DynamoDB write capacity consumed', 'ConsumedWriteCapacityUnits'),
    ],
    [perTable('DynamoDB read throttle events', 'ReadThrottleEvents'), perTable('DynamoDB write throttle events', 'WriteThrottleEvents')],
  ];
}
