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

  constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const thresholds = { ...DEFAULT_THRESHOLDS, ...props.thresholds };
    const action = new SnsAction(props.alarmTopic);
    const alarm = (alarmId: string, metric: IMetric, description: string, threshold: number, periods = 1): Alarm => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    // API: the share of requests answered 5xx (handled 500s and integration failures alike).
    const requests = props.api.metricCount({ statistic: 'Sum', period: PERIOD });
    const serverErrors = props.api.metricServerError({ statistic: 'Sum', period: PERIOD });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      label: '5xx rate (%)',
      period: PERIOD,
    });
    alarm(
      'Api5xxRate',
      errorRate,
      `More than ${thresholds.serverErrorRatePercent}% of API requests answered 5xx`,
      thresholds.serverErrorRatePercent,
      2,
    );

    // Functions: unhandled failures (crashes, timeouts) and throttling, per function.
    for (const [name, fn] of props.functions.functions) {
      const id = pascalCase(name);
      alarm(
        `${id}Errors`,
        fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
        `Function ${name} failed (unhandled error or timeout)`,
        1,
      );
      alarm(`${id}Throttles`, fn.metricThrottles({ statistic: 'Sum', period: PERIOD }), `Function ${name} was throttled`, 1);
    }

    // Tables: throttled reads/writes, and system errors of the operations the routes perform.
    const access = serviceAccess(props.routes);
    for (const [name, table] of Object.entries(props.tables) as [TableName, ServiceTables[TableName]][]) {
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
      alarm(`${id}Throttles`, throttles, `DynamoDB table ${name} throttled requests`, 1);
      const operations = (access[name] ?? []).map((action) => OPERATIONS[action]);
      if (operations.length > 0) {
        const systemErrors = table.metricSystemErrorsForOperations({ operations, statistic: 'Sum', period: PERIOD });
        alarm(`${id}SystemErrors`, systemErrors, `DynamoDB table ${name} returned system errors (HTTP 500)`, 1);
      }
    }

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
    const rateLimited = new Metric({ namespace: METRIC_NAMESPACE, metricName: RATE_LIMIT_METRIC, statistic: 'Sum', period: PERIOD });
    alarm(
      'RateLimitSpike',
      rateLimited,
      `At least ${thresholds.rateLimitRejections} requests answered 429 in 5 minutes`,
      thresholds.rateLimitRejections,
    );

    this.dashboard = this.buildDashboard(props, { requests, serverErrors, errorRate, rateLimited });
  }

  private buildDashboard(
    props: ServiceMonitoringProps,
    m: { requests: IMetric; serverErrors: IMetric; errorRate: IMetric; rateLimited: IMetric },
  ): Dashboard {
    const fns = [...props.functions.functions];
    const perFunction = (title: string, metric: (fn: (typeof fns)[number][1], label: string) => IMetric) =>
      new GraphWidget({ title, width: 12, left: fns.map(([name, fn]) => metric(fn, name)) });
    const perTable = (label: string, metricName: string) =>
      new GraphWidget({
        title: label,
        width: 12,
        left: Object.entries(props.tables).map(([name, table]) =>
          table.metric(metricName, { statistic: 'Sum', period: PERIOD, label: name }),
        ),
      });

    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    dashboard.addWidgets(
      new TextWidget({ markdown: '# Game Session Token Service', width: 24, height: 1 }),
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        width: 8,
        left: [m.requests, props.api.metricClientError({ statistic: 'Sum', period: PERIOD }), m.serverErrors],
      }),
      new GraphWidget({ title: 'API 5xx rate (%)', width: 8, left: [m.errorRate] }),
      new GraphWidget({
        title: 'API latency (ms)',
        width: 8,
        left: [
          props.api.metricLatency({ statistic: 'p50', period: PERIOD }),
          props.api.metricLatency({ statistic: 'p99', period: PERIOD }),
        ],
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({ title: 'Rate-limit rejections (429)', width: 12, left: [m.rateLimited] }),
      perFunction('Function duration p99 (ms)', (fn, label) => fn.metricDuration({ statistic: 'p99', period: PERIOD, label })),
    );
    dashboard.addWidgets(
      perFunction('Function invocations', (fn, label) => fn.metricInvocations({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Function errors', (fn, label) => fn.metricErrors({ statistic: 'Sum', period: PERIOD, label })),
    );
    dashboard.addWidgets(
      perFunction('Function throttles', (fn, label) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Function concurrency (max)', (fn, label) =>
        fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD, label }),
      ),
    );
    dashboard.addWidgets(
      perTable('DynamoDB read capacity consumed', 'ConsumedReadCapacityUnits'),
      perTable('DynamoDB write capacity consumed', 'ConsumedWriteCapacityUnits'),
    );
    dashboard.addWidgets(
      perTable('DynamoDB read throttle events', 'ReadThrottleEvents'),
      perTable('DynamoDB write throttle events', 'WriteThrottleEvents'),
    );
    return dashboard;
  }
}
