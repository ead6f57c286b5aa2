/**
 * The synthesized stack's alarms and dashboard: per operation of THE routes table, per function,
 * per table and index of THE tables table; the alarm topic and its policy. Where alarms go besides
 * (the us-east-1 edge alarm stack, Slack): `alarm-targets.test.ts`.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDeployContext, serviceStackProps } from '../../infra/config.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { RUNBOOK_ENTRIES } from '../../infra/alarm-thresholds.js';
import { functionNames, serviceAccess } from '../../infra/permissions.js';
import { METRIC, METRIC_NAMESPACE } from '../../shared/platform/observability.js';
import { routes } from '../../shared/routes.js';
import { tables, type TableName } from '../../shared/tables.js';
import { lookups, asList, logicalId, referencedIds, resourcesOf, synthesize, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const tableNames = Object.keys(tables) as TableName[];
const fnNames = functionNames(routes);
const { tableId, fnId } = lookups(() => s);

describe('monitoring', () => {
  const alarms = () => resourcesOf(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const topicId = () => logicalId(s.stack, s.stack.ownAlarmTopic!.topic);

  test('every alarm notifies the alarm topic, on alarm and on recovery', () => {
    expect(alarms().length).toBeGreaterThan(0);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId() }]);
    }
  });

  test('the alarm topic is encrypted with a rotating key CloudWatch may use, and refuses plain HTTP', () => {
    const keyId = logicalId(s.stack, s.stack.ownAlarmTopic!.key);
    expect(s.json.Resources[topicId()]!.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(s.json.Resources[keyId]!.Properties.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(s.json.Resources[keyId]!.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  test('CloudWatch may publish to the alarm topic (the topic policy replaces SNS’s default one), for this account’s alarms only', () => {
    const policies = resourcesOf(s.json, 'AWS::SNS::TopicPolicy').filter(([, p]) => referencedIds(p.Properties.Topics).has(topicId()));
    expect(policies).toHaveLength(1);
    const statements = asList(policies[0]![1].Properties.PolicyDocument.Statement) as Record<string, any>[];
    const allows = statements.filter(
      (st) =>
        st.Effect === 'Allow' &&
        asList(st.Principal?.Service).includes('cloudwatch.amazonaws.com') &&
        asList(st.Action).includes('sns:Publish') &&
        referencedIds(st.Resource).has(topicId()),
    );
    expect(allows).toHaveLength(1);
    // No condition may keep CloudWatch out over HTTPS, and the allowance is scoped to this account's alarms.
    expect(allows[0]!.Condition).toMatchObject({
      StringEquals: { 'aws:SourceAccount': '123456789012' },
      ArnLike: { 'aws:SourceArn': expect.anything() },
    });
    expect(JSON.stringify(allows[0]!.Condition.ArnLike['aws:SourceArn'])).toContain(':cloudwatch:eu-west-1:123456789012:alarm:*');
    // Every deny is the SSL-only one: nothing else overrides the allowance.
    for (const st of statements.filter((x) => x.Effect === 'Deny'))
      expect(st.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
  });

  type AlarmMetric = {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] }; Stat: string };
  };
  const statsOf = (a: Record<string, any>) => ((a.Metrics ?? []) as AlarmMetric[]).flatMap((m) => (m.MetricStat ? [m.MetricStat] : []));
  const dimension = (stat: AlarmMetric['MetricStat'], name: string) => stat!.Metric.Dimensions.find((d) => d.Name === name)?.Value;
  const operations = [...new Set(routes.map((r) => r.operation))];

  test.each(operations.map((o) => [o] as const))(
    '%s: a 5xx ratio of the service’s own metrics, in 3 of 5 minutes, past a minimum of requests',
    (operation) => {
      const ratio = alarms().find(
        (a) => a.Metrics && statsOf(a).some((m) => m.Metric.MetricName === METRIC.serverErrors && dimension(m, 'operation') === operation),
      )!;
      expect(ratio).toMatchObject({ EvaluationPeriods: 5, DatapointsToAlarm: 3, Threshold: 5, TreatMissingData: 'notBreaching' });
      const stats = statsOf(ratio);
      expect(stats.map((m) => m.Metric.MetricName).sort()).toEqual([METRIC.requests, METRIC.serverErrors]);
      for (const m of stats) {
        expect(m.Metric.Namespace).toBe(METRIC_NAMESPACE);
        expect(dimension(m, 'service')).toBe('game-session-token-service');
      }
      const expression = (ratio.Metrics as AlarmMetric[]).find((m) => m.Expression)!.Expression;
      expect(expression).toBe('IF(requests >= 5, 100 * errors / requests, IF(errors >= 2, 100, 0))');
    },
  );

  test('a quiet operation failing every call breaches each minute; one failure of a quiet minute or 1% of a busy one does not', () => {
    const ratio = alarms().find((a) => JSON.stringify(a.Metrics ?? []).includes(METRIC.serverErrors))!;
    const expression = (ratio.Metrics as AlarmMetric[]).find((m) => m.Expression)!.Expression!;
    // The expression is also valid JavaScript once IF is a function: evaluate one minute of it.
    const minute = (requests: number, errors: number): number =>
      new Function('requests', 'errors', 'IF', `return ${expression};`)(requests, errors, (c: boolean, a: number, b: number) =>
        c ? a : b,
      );
    const breaches = (requests: number, errors: number) => minute(requests, errors) >= ratio.Threshold;
    expect(breaches(2, 2)).toBe(true); // an admin operation failing at 2 requests a minute
    expect(breaches(1, 1)).toBe(false); // one failure alone in a quiet minute
    expect(breaches(4, 1)).toBe(false);
    expect(breaches(100, 1)).toBe(false); // 1% of a busy operation
    expect(breaches(100, 5)).toBe(true);
  });

  test.each(operations.map((o) => [o] as const))('%s: p99 handler time over three 5-minute periods', (operation) => {
    const p99 = alarms().find((a) => a.MetricName === METRIC.latency && a.Dimensions.some((d: any) => d.Value === operation))!;
    expect(p99).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      ExtendedStatistic: 'p99',
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: 1000,
    });
  });

  test('requests API Gateway answered without a function (its throttling, failed integrations): its count less the service’s', () => {
    const unserved = alarms().find((a) => JSON.stringify(a.Metrics ?? []).includes('received - served'))!;
    const stats = statsOf(unserved);
    expect(stats.map((m) => [m.Metric.Namespace, m.Metric.MetricName]).sort()).toEqual([
      ['AWS/ApiGateway', 'Count'],
      [METRIC_NAMESPACE, METRIC.requests],
    ]);
    expect(stats.find((m) => m.Metric.Namespace === METRIC_NAMESPACE)!.Metric.Dimensions).toEqual([
      { Name: 'service', Value: 'game-session-token-service' },
    ]);
    expect(unserved).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2, Threshold: 10 });
  });

  test('the account’s Lambda concurrency against its quota', () => {
    const concurrency = alarms().find((a) => a.MetricName === 'ConcurrentExecutions' && !a.Dimensions);
    expect(concurrency).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Maximum', Threshold: 800, DatapointsToAlarm: 2 });
  });

  test.each(tableNames.flatMap((t) => tables[t].indexes.map((i) => [t, i.name] as const)))(
    '%s index %s: throttle events alarm',
    (table, index) => {
      const onIndex = alarms().filter((a) =>
        statsOf(a).some(
          (m) =>
            m.Metric.MetricName === 'WriteThrottleEvents' &&
            dimension(m, 'GlobalSecondaryIndexName') === index &&
            referencedIds(m.Metric.Dimensions).has(tableId(table)),
        ),
      );
      expect(onIndex).toHaveLength(1);
      expect(referencedIds(onIndex[0]!.Metrics).has(tableId(table))).toBe(true);
      expect(onIndex[0]).toMatchObject({ Threshold: 10, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    },
  );

  test('no alarm pages on one event, and every alarm names its runbook entry', () => {
    for (const alarm of alarms()) {
      expect(alarm.EvaluationPeriods).toBeGreaterThanOrEqual(3);
      expect(alarm.DatapointsToAlarm).toBeGreaterThanOrEqual(2);
      const entry = /\(docs\/runbook\.md#([a-z0-9-]+)\)$/.exec(alarm.AlarmDescription)?.[1];
      expect(RUNBOOK_ENTRIES).toContain(entry);
    }
    // Each entry is a heading of the runbook (GitHub's anchor of `### operation-5xx-ratio` is the text itself).
    const runbook = readFileSync(join(PROJECT_ROOT, 'docs', 'runbook.md'), 'utf8');
    for (const entry of RUNBOOK_ENTRIES) expect(runbook).toMatch(new RegExp(`^### ${entry}$`, 'm'));
  });

  test('thresholds come from the context; in us-east-1 (where its metrics are) CloudFront’s 5xx rate alarms too', () => {
    expect(alarms().some((a) => a.Namespace === 'AWS/CloudFront')).toBe(false);
    const context = { alarms: '{"serverErrorRatePercent":2,"latencyP99Ms":750}', noAlarmTarget: 'true' } as Record<string, string>;
    const { alarmThresholds } = serviceStackProps(
      readDeployContext((key) => context[key]),
      undefined,
    );
    const custom = synthesize({ alarmThresholds, env: { account: '123456789012', region: 'us-east-1' } });
    const customAlarms = resourcesOf(custom.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(customAlarms.find((a) => a.Namespace === 'AWS/CloudFront')).toMatchObject({
      MetricName: '5xxErrorRate',
      Threshold: 5,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
    });
    expect(customAlarms.find((a) => a.MetricName === METRIC.latency)).toMatchObject({ Threshold: 750 });
    expect(customAlarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes(METRIC.serverErrors)).map((a) => a.Threshold)).toEqual(
      operations.map(() => 2),
    );
  });

  test.each(fnNames.map((n) => [n] as const))('%s: alarms on errors and throttles', (name) => {
    for (const metric of ['Errors', 'Throttles']) {
      const alarm = alarms().find((a) => a.MetricName === metric && referencedIds(a.Dimensions).has(fnId(name)));
      expect(alarm).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    }
  });

  test.each(tableNames.map((n) => [n] as const))('%s: alarms on throttles and on system errors of the operations it serves', (name) => {
    const onTable = alarms().filter((a) => referencedIds(a.Metrics).has(tableId(name)));
    type AlarmMetric = { MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } };
    const metricsOf = (a: Record<string, any>) => (a.Metrics as AlarmMetric[]).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    const throttle = onTable.find((a) => metricsOf(a).some((m) => m.MetricName === 'ReadThrottleEvents'));
    expect(
      metricsOf(throttle!)
        .map((m) => m.MetricName)
        .sort(),
    ).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
    const operations = serviceAccess(routes)[name] ?? [];
    const systemErrors = onTable.find((a) => metricsOf(a).some((m) => m.MetricName === 'SystemErrors'));
    if (operations.length === 0) return expect(systemErrors).toBeUndefined();
    const watched = metricsOf(systemErrors!).map((m) => m.Dimensions.find((d) => d.Name === 'Operation')!.Value);
    // A transaction's check (IAM: ConditionCheckItem) is counted by CloudWatch as the transaction.
    const cloudWatchOperation = (action: string) => (action === 'ConditionCheckItem' ? 'TransactWriteItems' : action);
    expect(watched.sort()).toEqual(operations.map(cloudWatchOperation).sort());
  });

  test('429 answers are a metric (refusals by reason), not a page; no alarm reads log lines', () => {
    expect(resourcesOf(s.json, 'AWS::Logs::MetricFilter')).toEqual([]);
    for (const alarm of alarms()) expect(JSON.stringify(alarm)).not.toContain(METRIC.refusals);
  });

  test('a dashboard with the alarms, the API, every function and every table', () => {
    const [[, dashboard]] = resourcesOf(s.json, 'AWS::CloudWatch::Dashboard') as unknown as [
      [string, { Properties: { DashboardBody: unknown } }],
    ];
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const name of fnNames) expect(body).toContain(fnId(name));
    for (const name of tableNames) expect(body).toContain(tableId(name));
    for (const name of [METRIC.refusals, METRIC.requests, METRIC.latency, METRIC.tokensMinted, METRIC.mcpToolCalls])
      expect(body).toContain(name);
    expect(body).toContain('TimeToLiveDeletedItemCount');
    // Tokens left unused (no event marks an expiry): minted less consumed and revoked, per hour.
    const unused =
      /FILL\(SUM\(SEARCH\(.*?TokensMinted.*?3600\)\), 0\) - FILL\(SUM\(SEARCH\(.*?TokensConsumed.*?3600\)\), 0\) - FILL\(SUM\(SEARCH\(.*?TokensRevoked.*?3600\)\), 0\)/;
    expect(unused.test(body)).toBe(true);
    expect(body).toContain('alarm');
  });
});
