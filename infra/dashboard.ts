/**
 * The dashboard on-call opens first: alarm states on top (what needs attention now), then the
 * service's own metrics per operation (requests, 5xx, p99, refusals by reason, tokens, replays,
 * MCP tools), the webhooks (attempts, their time, dead letters, the stream workers' lag), then the
 * API, the functions and workers, and the tables (where to look next).
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  TextWidget,
  type Alarm,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DIMENSIONS, METRIC, METRIC_NAMESPACE } from '../shared/platform/observability.js';
import { CLOUDFRONT_REGION } from './edge.js';
import type { ServiceMetric, ServiceMonitoringProps } from './monitoring.js';
import type { ServiceTables } from './tables.js';

const PERIOD = Duration.minutes(5);

/** What the dashboard shows: what the monitoring watches, and what it made of it. */
interface DashboardProps extends Pick<
  ServiceMonitoringProps,
  'api' | 'functions' | 'workers' | 'queues' | 'tables' | 'distribution' | 'serviceName'
> {
  readonly operations: readonly string[];
  readonly metric: ServiceMetric;
  readonly alarms: readonly Alarm[];
}

/** Build the dashboard, one row per concern. */
export function buildDashboard(scope: Construct, props: DashboardProps): Dashboard {
  const dashboard = new Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(6) });
  const rows: IWidget[][] = [
    [
      new TextWidget({ markdown: '# Game Session Token Service — alarms explained in docs/runbook.md', width: 24, height: 1 }),
      new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 6 }),
    ],
    ...serviceRows(props),
    webhookRow(props),
    apiRow(props.api, props.distribution),
    ...functionRows([...props.functions.functions, ...props.workers.functions]),
    ...tableRows(props.tables),
  ];
  for (const row of rows) dashboard.addWidgets(...row);
  return dashboard;
}

/** The token lifecycle counts, each per operation. */
const TOKEN_METRICS = [METRIC.tokensMinted, METRIC.tokensConsumed, METRIC.tokensRevoked] as const;

/**
 * The SEARCH expression over the service's metrics of one name, summed per `period`: one line per
 * value of dimensions the code keeps low-cardinality.
 */
function searchExpression(metricName: string, dimensions: readonly string[], serviceName: string, period: Duration): string {
  const schema = [METRIC_NAMESPACE, DIMENSIONS.service, ...dimensions].join(',');
  return `SEARCH('{${schema}} MetricName="${metricName}" ${DIMENSIONS.service}="${serviceName}"', 'Sum', ${period.toSeconds()})`;
}

/** A SEARCH over the service's metrics, per dashboard period. */
function search(metricName: string, dimensions: readonly string[], serviceName: string): MathExpression {
  return new MathExpression({ expression: searchExpression(metricName, dimensions, serviceName, PERIOD), label: '', period: PERIOD });
}

/**
 * Tokens left unused, per hour: minted less consumed and revoked, over every operation. Nothing
 * happens when a token expires (it expires by time alone, no request sees it), so no metric can be
 * emitted then; over hours longer than a token's lifetime this difference is the tokens expiring
 * unused (docs/runbook.md, "Metrics"). A rise with steady mints means play pages stopped consuming.
 */
function unusedTokens(serviceName: string): MathExpression {
  const hour = Duration.hours(1);
  // FILL: an hour with no revoke (or no search match at all) counts 0, not a gap that empties the difference.
  const total = (name: string) => `FILL(SUM(${searchExpression(name, [DIMENSIONS.operation], serviceName, hour)}), 0)`;
  return new MathExpression({
    expression: TOKEN_METRICS.map(total).join(' - '),
    label: 'left unused per hour: minted − consumed − revoked (expiring unused, over hours longer than a lifetime)',
    period: hour,
  });
}

/** A third of a row. */
function graph(title: string, left: IMetric[]): GraphWidget {
  return new GraphWidget({ title, width: 8, left });
}

/** Per operation: requests, 5xx, p99; refusals by reason (429s among them: a metric, not a page), tokens, replays, MCP tools. */
function serviceRows(props: DashboardProps): IWidget[][] {
  const perOperation = (title: string, name: string, statistic: string) =>
    new GraphWidget({
      title,
      width: 8,
      left: props.operations.map((operation) => props.metric(name, statistic, PERIOD, { operation }).with({ label: operation })),
    });
  const total = (name: string, label: string) => props.metric(name, 'Sum', PERIOD).with({ label });
  return [
    [
      perOperation('Requests per operation', METRIC.requests, 'Sum'),
      perOperation('5xx per operation', METRIC.serverErrors, 'Sum'),
      perOperation('Handler time p99 per operation (ms)', METRIC.latency, 'p99'),
    ],
    [
      graph('Refusals by reason (RateLimited: partners over quota)', [search(METRIC.refusals, [DIMENSIONS.reason], props.serviceName)]),
      graph('Tokens minted, consumed, revoked (per operation), left unused; items removed by TTL', [
        ...TOKEN_METRICS.map((name) => search(name, [DIMENSIONS.operation], props.serviceName)),
        unusedTokens(props.serviceName),
        // Not expired tokens: an item's TTL is its expiry plus the retention days, so this counts every
        // kind of token days after it ended (per-day expired counts: the session report, docs/runbook.md).
        props.tables.tokens.metric('TimeToLiveDeletedItemCount', {
          statistic: 'Sum',
          period: PERIOD,
          label: 'token items removed by TTL (any outcome, retention days after expiry)',
        }),
      ]),
      graph('MCP tool calls by tool', [search(METRIC.mcpToolCalls, [DIMENSIONS.tool], props.serviceName)]),
    ],
    [
      perOperation('Idempotent replays', METRIC.idempotentReplays, 'Sum'),
      perOperation('DynamoDB throttled attempts', METRIC.dynamoThrottles, 'Sum'),
      perOperation('DynamoDB retries', METRIC.dynamoRetries, 'Sum'),
    ],
    [graph('All requests', [total(METRIC.requests, 'requests'), total(METRIC.serverErrors, '5xx')])],
  ];
}

/**
 * Webhooks: delivery attempts delivered and failed, an attempt's time (p50, p99), the dead-letter
 * queues' depth (with the delivery queue's, the work waiting), and how far behind its streams each
 * stream worker reads (Lambda's iterator age: records older than 24 hours are gone from a stream).
 */
function webhookRow(props: DashboardProps): IWidget[] {
  const attempts = (name: string, label: string) => props.metric(name, 'Sum', PERIOD).with({ label });
  const latency = (statistic: string) => props.metric(METRIC.webhookLatency, statistic, PERIOD).with({ label: statistic });
  const depth = (queue: IQueue, label: string) =>
    queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD, label });
  const queues = Object.entries(props.queues.queues).flatMap(([name, { queue, deadLetters }]) => [
    depth(queue, `${name} (waiting)`),
    depth(deadLetters, `${name} dead letters`),
  ]);
  const streamWorkers = [...props.workers.functions].filter(([name]) => props.workers.triggers.get(name) === 'stream');
  return [
    new GraphWidget({
      title: 'Webhook attempts',
      width: 6,
      left: [attempts(METRIC.webhookDelivered, 'delivered'), attempts(METRIC.webhookFailed, 'failed')],
    }),
    new GraphWidget({ title: 'Webhook attempt time (ms)', width: 6, left: [latency('p50'), latency('p99')] }),
    new GraphWidget({
      title: 'Webhook queues and dead letters',
      width: 6,
      left: [...queues, depth(props.queues.streamFailures, 'stream batches given up')],
    }),
    new GraphWidget({
      title: 'Stream iterator age (ms, max)',
      width: 6,
      left: streamWorkers.map(([name, fn]) => fn.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: name })),
    }),
  ];
}

/** API Gateway's view (its throttling shows as requests no function served) and CloudFront's 5xx rate (us-east-1's metrics). */
function apiRow(api: HttpApi, distribution: Distribution | undefined): IWidget[] {
  const widgets: IWidget[] = [
    new GraphWidget({
      title: 'API Gateway requests and errors',
      width: 8,
      left: [
        api.metricCount({ statistic: 'Sum', period: PERIOD }),
        api.metricClientError({ statistic: 'Sum', period: PERIOD }),
        api.metricServerError({ statistic: 'Sum', period: PERIOD }),
      ],
    }),
    new GraphWidget({
      title: 'API Gateway latency (ms)',
      width: 8,
      left: [api.metricLatency({ statistic: 'p50', period: PERIOD }), api.metricLatency({ statistic: 'p99', period: PERIOD })],
    }),
  ];
  if (distribution) {
    const rate: IMetric = distribution.metric5xxErrorRate({ statistic: 'Average', period: PERIOD, region: CLOUDFRONT_REGION });
    widgets.push(graph('CloudFront 5xx rate (%)', [rate]));
  }
  return widgets;
}

/** Duration, invocations, errors, throttles, concurrency: one line per function (routes' and workers'). */
function functionRows(fns: readonly (readonly [string, NodejsFunction])[]): IWidget[][] {
  const perFunction = (title: string, metric: (fn: (typeof fns)[number][1], label: string) => IMetric) =>
    new GraphWidget({ title, width: 12, left: fns.map(([name, fn]) => metric(fn, name)) });
  return [
    [
      perFunction('Function duration p99 (ms)', (fn, label) => fn.metricDuration({ statistic: 'p99', period: PERIOD, label })),
      perFunction('Function invocations', (fn, label) => fn.metricInvocations({ statistic: 'Sum', period: PERIOD, label })),
    ],
    [
      perFunction('Function errors', (fn, label) => fn.metricErrors({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Function throttles', (fn, label) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label })),
    ],
    [
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
