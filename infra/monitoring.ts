/**
 * Operations: the alarms that page (each over several datapoints, never on one event), notifying an
 * SNS topic, and the dashboard (`dashboard.ts`). What is watched derives from the same tables as
 * everything else: a 5xx ratio and a p99 latency per operation of the routes table (the service's
 * own EMF metrics, `shared/platform/observability.ts`; quiet operations by their count of 5xx), throttles per table and index of the tables table,
 * DynamoDB system errors for exactly the operations the routes declare; per worker of the workers
 * table its failures and throttles, and for the webhooks the depth of every dead-letter queue and
 * the delivery attempts' failure rate. Partners' 429s are a metric on the dashboard, not a page.
 * Each alarm's meaning and first checks: docs/runbook.md.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { MathExpression, Metric, type Alarm, type Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { DIMENSIONS, METRIC, METRIC_NAMESPACE } from '../shared/platform/observability.js';
import type { DynamoAction, RouteDefinition } from '../shared/platform/route.js';
import { tables, type TableName } from '../shared/tables.js';
import { DEFAULT_THRESHOLDS, type AlarmThresholds, type RunbookEntry } from './alarm-thresholds.js';
import { buildDashboard } from './dashboard.js';
import { CLOUDFRONT_REGION } from './edge.js';
import { edge5xxRateSpec, pagingAlarm, type PagingAlarmSpec } from './paging-alarm.js';
import { type ServiceFunctions } from './functions.js';
import { pascalCase } from './construct-ids.js';
import { serviceAccess } from './permissions.js';
import type { ServiceQueues } from './queues.js';
import type { ServiceTables } from './tables.js';
import type { ServiceWorkers } from './workers.js';

export type { AlarmThresholds } from './alarm-thresholds.js';

const MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

/** CloudWatch's operation dimension for each action the routes table may declare. */
const OPERATIONS: Record<DynamoAction, Operation> = {
  GetItem: Operation.GET_ITEM,
  PutItem: Operation.PUT_ITEM,
  UpdateItem: Operation.UPDATE_ITEM,
  DeleteItem: Operation.DELETE_ITEM,
  // A transaction's check: CloudWatch counts the whole transaction (shared/keys/key-store.ts).
  ConditionCheckItem: Operation.TRANSACT_WRITE_ITEMS,
  Query: Operation.QUERY,
  BatchGetItem: Operation.BATCH_GET_ITEM,
  BatchWriteItem: Operation.BATCH_WRITE_ITEM,
};

export interface ServiceMonitoringProps {
  readonly routes: readonly RouteDefinition[];
  readonly api: HttpApi;
  readonly functions: ServiceFunctions;
  readonly workers: ServiceWorkers;
  readonly queues: ServiceQueues;
  readonly tables: ServiceTables;
  /** The public distribution (its 5xx rate alarms where its metrics are: us-east-1). */
  readonly distribution?: Distribution;
  /** The `service` dimension of the metrics (the functions' POWERTOOLS_SERVICE_NAME). */
  readonly serviceName: string;
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
    const metric = serviceMetric(props.serviceName);
    const operations = [...new Set(props.routes.map((r) => r.operation))];
    for (const operation of operations) this.watchOperation(operation, metric, thresholds);
    this.watchApi(props.api, metric, thresholds);
    this.watchFunctions(props.functions, thresholds);
    this.watchWorkers(props.workers);
    this.watchWebhooks(props.queues, metric, thresholds);
    this.watchTables(props.routes, props.tables, thresholds);
    if (props.distribution) this.watchEdge(props.distribution, thresholds);
    this.dashboard = buildDashboard(this, { ...props, operations, metric, alarms: this.alarms });
  }

  /** An alarm that pages (`paging-alarm.ts`), listed on the dashboard. */
  private alarm(alarmId: string, spec: PagingAlarmSpec): Alarm {
    const created = pagingAlarm(this, alarmId, spec, this.action);
    this.alarms.push(created);
    return created;
  }

  /**
   * An operation's 5xx ratio and its p99 handler time, both from the functions' request lines
   * (embedded metric format). A minute breaches when its ratio of `ServerErrors` to `Requests` is at
   * least the threshold, or, in a quiet minute (too few requests for a ratio to mean anything), when
   * it has at least `quietMinuteServerErrors` 5xx: an admin operation failing every call at two
   * requests a minute pages like a busy one. Such a minute reads 100 (%) on the graph.
   */
  private watchOperation(operation: string, metric: ServiceMetric, thresholds: AlarmThresholds): void {
    const id = pascalCase(operation);
    const { minRequestsPerMinute: min, quietMinuteServerErrors: quiet } = thresholds;
    const ratio = new MathExpression({
      expression: `IF(requests >= ${min}, 100 * errors / requests, IF(errors >= ${quiet}, 100, 0))`,
      usingMetrics: {
        requests: metric(METRIC.requests, 'Sum', MINUTE, { operation }),
        errors: metric(METRIC.serverErrors, 'Sum', MINUTE, { operation }),
      },
      label: `${operation} 5xx (%; 100: a quiet minute with ${quiet}+ 5xx)`,
      period: MINUTE,
    });
    const percent = thresholds.serverErrorRatePercent;
    this.alarm(`${id}5xxRatio`, {
      metric: ratio,
      description: `At least ${percent}% of ${operation} requests answered 5xx`,
      threshold: percent,
      datapoints: { of: 5, breaching: 3 },
      runbook: 'operation-5xx-ratio',
    });
    const p99 = metric(METRIC.latency, 'p99', FIVE_MINUTES, { operation });
    const ms = thresholds.latencyP99Ms;
    this.alarm(`${id}LatencyP99`, {
      metric: p99,
      description: `${operation} p99 handler time at least ${ms} ms`,
      threshold: ms,
      datapoints: { of: 3, breaching: 3 },
      runbook: 'operation-p99-latency',
    });
  }

  /**
   * Requests API Gateway counted that no function served: its own throttling (429), failed
   * integrations (a throttled or crashed function: 500/503). The difference of API Gateway's count
   * and the service's.
   */
  private watchApi(api: HttpApi, metric: ServiceMetric, thresholds: AlarmThresholds): void {
    const unserved = new MathExpression({
      expression: 'MAX([0, received - served])',
      usingMetrics: {
        received: api.metricCount({ statistic: 'Sum', period: FIVE_MINUTES }),
        served: metric(METRIC.requests, 'Sum', FIVE_MINUTES),
      },
      label: 'Requests answered by API Gateway alone',
      period: FIVE_MINUTES,
    });
    const n = thresholds.unservedRequests;
    const description = `At least ${n} requests in 5 minutes answered by API Gateway without a function`;
    this.alarm('ApiUnserved', {
      metric: unserved,
      description,
      threshold: n,
      datapoints: { of: 3, breaching: 2 },
      runbook: 'api-unserved',
    });
  }

  /**
   * Per function: unhandled failures (timeouts, out of memory, failed cold starts: the bundle
   * answers everything else) and throttling; and the account's concurrency against its quota.
   */
  private watchFunctions(functions: ServiceFunctions, thresholds: AlarmThresholds): void {
    this.watchFailures(functions.functions, 'Function', 'function-errors');
    const concurrency = new Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum', period: MINUTE });
    const n = thresholds.accountConcurrency;
    this.alarm('AccountConcurrency', {
      metric: concurrency,
      description: `Lambda concurrent executions at least ${n} in the account`,
      threshold: n,
      datapoints: { of: 3, breaching: 2 },
      runbook: 'account-concurrency',
    });
  }

  /**
   * Per worker: unhandled failures (a batch failing as a whole, a timeout, a crash: the triggers
   * retry it, so the alarm says something keeps failing) and throttling.
   */
  private watchWorkers(workers: ServiceWorkers): void {
    this.watchFailures(workers.functions, 'Worker', 'worker-errors');
  }

  /** Each function's failures and throttles (2 of 3 periods), as a `kind` ("Function", "Worker") of that name. */
  private watchFailures(functions: ServiceWorkers['functions'], kind: string, errorsRunbook: RunbookEntry): void {
    const twoOfThree = { of: 3, breaching: 2 };
    for (const [name, fn] of functions) {
      const id = pascalCase(name);
      this.alarm(`${id}Errors`, {
        metric: fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
        description: `${kind} ${name} failed`,
        threshold: 1,
        datapoints: twoOfThree,
        runbook: errorsRunbook,
      });
      this.alarm(`${id}Throttles`, {
        metric: fn.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES }),
        description: `${kind} ${name} throttled`,
        threshold: 1,
        datapoints: twoOfThree,
        runbook: 'function-throttles',
      });
    }
  }

  /**
   * Webhooks: a message in any dead-letter queue (a delivery given up after five receives, a stream
   * batch given up after ten tries, a stream record the events worker kept as unreadable: each is an
   * event a partner will not get until on-call redrives or replays it), the unreadable records'
   * count, and the share of delivery attempts that failed (the delivery worker's own metrics). A dead
   * letter stays until someone acts, so 2 of 3 periods still means one message, seen twice.
   */
  private watchWebhooks(queues: ServiceQueues, metric: ServiceMetric, thresholds: AlarmThresholds): void {
    const deadLetters = [
      ...Object.entries(queues.queues).map(([name, { deadLetters: queue }]) => [`${pascalCase(name)}DeadLetters`, name, queue] as const),
      ['StreamFailures', 'stream batches and unreadable stream records', queues.streamFailures] as const,
    ];
    for (const [id, name, queue] of deadLetters) {
      this.alarm(id, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
        description: `Messages in the dead-letter queue of ${name}`,
        threshold: 1,
        datapoints: { of: 3, breaching: 2 },
        runbook: 'webhook-dead-letters',
      });
    }
    const { minWebhookAttempts: min, webhookFailureRatePercent: percent } = thresholds;
    const rate = new MathExpression({
      expression: `IF(delivered + failed >= ${min}, 100 * failed / (delivered + failed), 0)`,
      usingMetrics: {
        delivered: metric(METRIC.webhookDelivered, 'Sum', FIVE_MINUTES),
        failed: metric(METRIC.webhookFailed, 'Sum', FIVE_MINUTES),
      },
      label: `Webhook attempts failed (%; 0 under ${min} attempts)`,
      period: FIVE_MINUTES,
    });
    this.alarm('WebhookFailureRate', {
      metric: rate,
      description: `At least ${percent}% of webhook delivery attempts failed`,
      threshold: percent,
      datapoints: { of: 3, breaching: 3 },
      runbook: 'webhook-failure-rate',
    });
    // A record kept is an event no partner got: any in a period counts. Its message in the stream
    // failures queue pages through the queue's alarm too; this one says which kind it is, and how many.
    this.alarm('WebhookRecordsUnreadable', {
      metric: metric(METRIC.webhookRecordsUnreadable, 'Sum', FIVE_MINUTES),
      description: 'Stream records the webhook events worker could not turn into events (kept on the stream failures queue)',
      threshold: 1,
      datapoints: { of: 3, breaching: 2 },
      runbook: 'webhook-records-unreadable',
    });
  }

  /**
   * Throttle events per table and per global secondary index (an index throttled throttles its
   * table's writes), and system errors of exactly the operations the routes perform on a table: an
   * operation no route uses would only add an alarm that can never fire.
   */
  private watchTables(routes: readonly RouteDefinition[], serviceTables: ServiceTables, thresholds: AlarmThresholds): void {
    const access = serviceAccess(routes);
    const twoOfThree = { of: 3, breaching: 2 };
    for (const [name, table] of Object.entries(serviceTables) as [TableName, ServiceTables[TableName]][]) {
      const id = tables[name].id;
      const dims = (extra: Record<string, string>) => ({ TableName: table.tableName, ...extra });
      const throttleEvents = (label: string, dimensions: Record<string, string> = {}) =>
        new MathExpression({
          expression: 'reads + writes',
          usingMetrics: {
            reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES, dimensionsMap: dims(dimensions) }),
            writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES, dimensionsMap: dims(dimensions) }),
          },
          label,
          period: FIVE_MINUTES,
        });
      const n = thresholds.dynamoThrottleEvents;
      this.alarm(`${id}Throttles`, {
        metric: throttleEvents(`${name} throttle events`),
        description: `DynamoDB table ${name} throttled`,
        threshold: n,
        datapoints: twoOfThree,
        runbook: 'dynamodb-throttles',
      });
      for (const index of tables[name].indexes) {
        const events = throttleEvents(`${name}/${index.name} throttle events`, { GlobalSecondaryIndexName: index.name });
        this.alarm(`${id}${pascalCase(index.name)}Throttles`, {
          metric: events,
          description: `DynamoDB index ${name}/${index.name} throttled`,
          threshold: n,
          datapoints: twoOfThree,
          runbook: 'dynamodb-throttles',
        });
      }
      const operations = (access[name] ?? []).map((action) => OPERATIONS[action]);
      if (operations.length > 0) {
        const systemErrors = table.metricSystemErrorsForOperations({ operations, statistic: 'Sum', period: FIVE_MINUTES });
        this.alarm(`${id}SystemErrors`, {
          metric: systemErrors,
          description: `DynamoDB table ${name} returned system errors (HTTP 500)`,
          threshold: 1,
          datapoints: twoOfThree,
          runbook: 'dynamodb-system-errors',
        });
      }
    }
  }

  /**
   * CloudFront's 5xx rate. Its metrics exist only in us-east-1 and an alarm reads its own region's,
   * so the alarm is here in a us-east-1 stack; for any other region `deployment.ts` puts it into a
   * us-east-1 stack of its own (`edge-alarms.ts`). A stack whose region is unknown (environment
   * agnostic) has none: nothing says it is deployed where the metrics are.
   */
  private watchEdge(distribution: Distribution, thresholds: AlarmThresholds): void {
    if (Stack.of(this).region !== CLOUDFRONT_REGION) return;
    this.alarm('Edge5xxRate', edge5xxRateSpec(distribution.distributionId, thresholds));
  }
}

/** A metric of the service's own namespace, with its `service` dimension and any others. */
export type ServiceMetric = (name: string, statistic: string, period: Duration, dimensions?: Record<string, string>) => Metric;

/** The service's metrics under its `service` dimension (`shared/platform/observability.ts` names it in every dimension set). */
function serviceMetric(serviceName: string): ServiceMetric {
  return (name, statistic, period, dimensions = {}) =>
    new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: name,
      statistic,
      period,
      dimensionsMap: { [DIMENSIONS.service]: serviceName, ...dimensions },
    });
}
