/**
 * The synthesized stack, checked against the sources of truth: THE tables table (tables) and THE
 * routes table (functions, their permissions, API routes, edge function); the function environments
 * (THE env schema) are checked in `function-env.test.ts`. Everything iterates the tables, so new
 * routes are covered as they land. One synth for the whole file: loading aws-cdk-lib dominates the
 * time of an infra test file.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeployContext, serviceStackProps } from '../../infra/config.js';
import { edgeRewriteSource } from '../../infra/edge-rewrite.js';
import { FUNCTION_MEMORY_MB, pascalCase, PROJECT_ROOT } from '../../infra/functions.js';
import { RUNBOOK_ENTRIES } from '../../infra/alarm-thresholds.js';
import { createTableInput } from '../../infra/local/dynamo.js';
import { nagAcknowledgements } from '../../infra/nag.js';
import { functionAccess, functionNames, serviceAccess } from '../../infra/permissions.js';
import { functionEnvVars } from '../../shared/env-parts.js';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/origin-verify.js';
import { METRIC, METRIC_NAMESPACE } from '../../shared/metric-names.js';
import { answersHead, routes } from '../../shared/routes.js';
import { originPath } from '../../shared/operations/operation.js';
import { tables, type TableDefinition, type TableName } from '../../shared/tables.js';
import { lookups, asList, logicalId, referencedIds, resourcesOf, synthesize, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const tableNames = Object.keys(tables) as TableName[];
const fnNames = functionNames(routes);
const { tableId, fnId, fnResource } = lookups(() => s);

describe('tables', () => {
  const tableResource = (name: TableName) => s.json.Resources[tableId(name)]!;
  const byName = <T extends { AttributeName?: string; IndexName?: string }>(list: T[] = []) =>
    [...list].sort((a, b) => String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)));

  test('one DynamoDB table per entry of the tables table', () => {
    expect(resourcesOf(s.json, 'AWS::DynamoDB::Table')).toHaveLength(tableNames.length);
  });

  describe.each(tableNames.map((name) => [name] as const))('%s', (name) => {
    const def: TableDefinition = tables[name];

    test('has exactly the keys and indexes the local run creates (no drift)', () => {
      const local = createTableInput(def, 'local-name');
      const props = tableResource(name).Properties;
      expect(props.KeySchema).toEqual(local.KeySchema);
      expect(byName(props.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions));
      const localIndexes = (local.GlobalSecondaryIndexes ?? []).map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
        Projection: i.Projection,
      }));
      expect(byName(props.GlobalSecondaryIndexes)).toEqual(byName(localIndexes));
      expect(props.BillingMode).toBe(local.BillingMode);
    });

    test('TTL on the attribute the definition names, and only then', () => {
      const ttl = tableResource(name).Properties.TimeToLiveSpecification;
      if (def.ttlAttribute) expect(ttl).toEqual({ AttributeName: def.ttlAttribute, Enabled: true });
      else expect(ttl).toBeUndefined();
    });

    test('on demand, point-in-time recovery, deletion protection, encryption, retained on stack deletion', () => {
      const resource = tableResource(name);
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
      });
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    });

    test('its physical name is a stack output (the seed script reads it)', () => {
      expect(s.json.Outputs?.[`${def.id}TableName`]?.Value).toEqual({ Ref: tableId(name) });
    });
  });
});

describe('functions', () => {
  test('one Lambda function per distinct function of the routes table', () => {
    expect(
      resourcesOf(s.json, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(fnNames.map(fnId).sort());
  });

  test.each(fnNames.map((n) => [n] as const))('%s: runtime, architecture, handler, memory, tracing, log group', (name) => {
    const props = fnResource(name).Properties;
    expect(props).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: FUNCTION_MEMORY_MB,
      Timeout: 10,
      // X-Ray is opt-in (context `tracing`): its cost is line item of the benchmark's cost.
      TracingConfig: { Mode: 'PassThrough' },
    });
    const logGroupId = logicalId(s.stack, s.stack.functions.logGroups.get(name)!);
    expect(props.LoggingConfig).toEqual({
      LogGroup: { Ref: logGroupId },
      LogFormat: 'JSON',
      SystemLogLevel: 'WARN',
      ApplicationLogLevel: 'INFO',
    });
    expect(s.json.Resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
    // The origin secret is read through the Parameters and Secrets extension layer (arm64 build).
    expect(JSON.stringify(props.Layers)).toContain('AWS-Parameters-and-Secrets-Lambda-Extension-Arm64');
  });

  describe('permissions', () => {
    const policyOf = (name: string) => {
      const roleId = logicalId(s.stack, s.stack.functions.functions.get(name)!.role as never);
      const policies = resourcesOf(s.json, 'AWS::IAM::Policy').filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId));
      expect(policies).toHaveLength(1);
      return asList(policies[0]![1].Properties.PolicyDocument.Statement) as {
        Action: string | string[];
        Resource: unknown;
        Effect: string;
      }[];
    };
    const tableIds = () => new Map(tableNames.map((n) => [tableId(n), n]));

    test('roles carry no AWS managed policy', () => {
      for (const name of fnNames) {
        const role = s.json.Resources[fnResource(name).Properties.Role['Fn::GetAtt'][0]]!;
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    test.each(fnNames.map((n) => [n] as const))('%s: exactly the DynamoDB actions and tables its routes declare', (name) => {
      const statements = policyOf(name);
      const expected = functionAccess(routes, name);
      const granted: Record<string, string[]> = {};
      for (const st of statements) {
        const actions = asList(st.Action);
        const dynamo = actions.filter((a) => a.startsWith('dynamodb:'));
        const touched = [...referencedIds(st.Resource)].filter((id) => tableIds().has(id));
        if (dynamo.length === 0) {
          // Statements about anything else never name a table.
          expect(touched).toEqual([]);
          continue;
        }
        expect(touched).toHaveLength(1);
        const table = tableIds().get(touched[0]!)!;
        granted[table] = [...(granted[table] ?? []), ...dynamo.map((a) => a.slice('dynamodb:'.length))].sort();
        // Index ARNs exactly where Query is granted, naming the table's own indexes.
        const indexes = asList(st.Resource)
          .map((r) => JSON.stringify(r).match(/\/index\/([\w-]+)/)?.[1])
          .filter((i): i is string => i !== undefined);
        expect(indexes.sort()).toEqual(dynamo.includes('dynamodb:Query') ? tables[table].indexes.map((i) => i.name).sort() : []);
      }
      expect(granted).toEqual(expected);
    });

    test.each(fnNames.map((n) => [n] as const))('%s: no wildcard actions; Resource "*" only for X-Ray', (name) => {
      for (const st of policyOf(name)) {
        expect(st.Effect).toBe('Allow');
        for (const action of asList(st.Action)) expect(action).not.toContain('*');
        if (asList(st.Resource).includes('*')) expect(asList(st.Action).every((a) => a.startsWith('xray:'))).toBe(true);
      }
    });

    test.each(fnNames.map((n) => [n] as const))(
      '%s: logs only to its own log group, reads the origin secret and exactly the secrets its code reads',
      (name) => {
        const statements = policyOf(name);
        const logs = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('logs:')));
        expect(logs.flatMap((st) => [...referencedIds(st.Resource)])).toEqual([logicalId(s.stack, s.stack.functions.logGroups.get(name)!)]);
        const secrets = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('secretsmanager:')));
        const reads = functionEnvVars(routes, name);
        const expected = [
          s.stack.originSecret,
          ...(reads.includes('PLAY_COOKIE_SECRET_ARN') ? [s.stack.playCookieSecret] : []),
          ...(reads.includes('SESSION_ID_KEY_ARN') ? [s.stack.sessionIdKey] : []),
        ].map((secret) => logicalId(s.stack, secret));
        expect(secrets.flatMap((st) => [...referencedIds(st.Resource)]).sort()).toEqual(expected.sort());
        for (const st of secrets) expect(asList(st.Action)).toContain('secretsmanager:GetSecretValue');
      },
    );
  });
});

describe('HTTP API', () => {
  test('one route per operation, on its origin path, integrated with its function (and HEAD for pages)', () => {
    const apiRoutes = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route');
    const keys = routes.flatMap((r) => [`${r.method} ${originPath(r)}`, ...(answersHead(r) ? [`HEAD ${originPath(r)}`] : [])]);
    expect(apiRoutes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(keys.sort());
    for (const route of routes.filter(answersHead)) {
      const [, head] = apiRoutes.find(([, r]) => r.Properties.RouteKey === `HEAD ${originPath(route)}`)!;
      const integration = s.json.Resources[[...referencedIds(head.Properties.Target)][0]!]!;
      expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId(route.function)]));
    }
    for (const route of routes) {
      const [, resource] = apiRoutes.find(([, r]) => r.Properties.RouteKey === `${route.method} ${originPath(route)}`)!;
      const integrationId = [...referencedIds(resource.Properties.Target)][0]!;
      const integration = s.json.Resources[integrationId]!;
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId(route.function)]));
    }
  });

  test('one integration per function', () => {
    expect(resourcesOf(s.json, 'AWS::ApiGatewayV2::Integration')).toHaveLength(fnNames.length);
  });

  test('the stage deploys automatically, writes JSON access logs and is throttled per route (test/infra/capacity.test.ts)', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      RouteSettings: Match.anyValue(),
    });
    const [[, stage]] = resourcesOf(s.json, 'AWS::ApiGatewayV2::Stage') as unknown as [[string, { Properties: any }]];
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });
});

describe('edge', () => {
  const distribution = () => resourcesOf(s.json, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;

  test('the CloudFront function is the generator’s code, on runtime cloudfront-js-2.0', () => {
    const functions = resourcesOf(s.json, 'AWS::CloudFront::Function');
    expect(functions).toHaveLength(1);
    expect(functions[0]![1].Properties).toMatchObject({
      FunctionCode: edgeRewriteSource(routes),
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      AutoPublish: true,
    });
  });

  test('every request passes the rewrite as a viewer request, uncached, with every viewer header but Host', () => {
    const behavior = distribution().DefaultCacheBehavior;
    expect(behavior.FunctionAssociations).toEqual([
      {
        EventType: 'viewer-request',
        FunctionARN: { 'Fn::GetAtt': [resourcesOf(s.json, 'AWS::CloudFront::Function')[0]![0], 'FunctionARN'] },
      },
    ]);
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
    });
    expect(distribution().CacheBehaviors).toBeUndefined();
  });

  test('the origin is the HTTP API over TLS 1.2, and every origin request carries the secret header', () => {
    const [origin] = distribution().Origins;
    expect(referencedIds(origin.DomainName)).toEqual(new Set([logicalId(s.stack, s.stack.api.api)]));
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    const header = origin.OriginCustomHeaders.find((h: { HeaderName: string }) => h.HeaderName === ORIGIN_VERIFY_HEADER);
    expect(JSON.stringify(header.HeaderValue)).toContain('{{resolve:secretsmanager:');
    expect(referencedIds(header.HeaderValue)).toEqual(new Set([logicalId(s.stack, s.stack.originSecret)]));
  });

  test('functions learn the public base URL: the distribution’s domain', () => {
    const readers = fnNames.filter((name) => functionEnvVars(routes, name).includes('PUBLIC_BASE_URL'));
    expect(readers.length).toBeGreaterThan(0);
    for (const name of readers) {
      const url = fnResource(name).Properties.Environment.Variables.PUBLIC_BASE_URL;
      expect(referencedIds(url)).toEqual(new Set([logicalId(s.stack, s.stack.edge.distribution)]));
    }
  });
});

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
      expect(expression).toMatch(/^IF\(requests >= 5, 100 \* errors \/ requests, 0\)$/);
    },
  );

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
    expect(watched.sort()).toEqual([...operations].sort());
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
    expect(body).toContain('alarm');
  });
});

describe('cdk-nag', () => {
  test('the AWS Solutions checks find nothing unacknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  test('every acknowledgement carries a reason of its own', () => {
    const acks = nagAcknowledgements(s.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(ack.reason.length).toBeGreaterThan(60);
    }
    // The same text twice would mean a reason copied instead of thought about (per-function X-Ray excepted).
    const reasons = new Set(acks.filter((a) => !a.id.startsWith('AwsSolutions-IAM5')).map((a) => `${a.id}|${a.reason}`));
    expect(new Set([...reasons].map((r) => r.split('|')[1])).size).toBe(reasons.size);
  });
});

test('construct ids of functions are stable names derived from the routes table', () => {
  for (const name of fnNames) expect(s.stack.functions.functions.get(name)!.node.id).toBe(pascalCase(name));
});

describe('health (issue 18)', () => {
  test('its own function, route GET /api/health on it, and only GetItem on the catalog table', () => {
    expect(fnNames).toContain('health');
    const route = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === 'GET /api/health');
    expect(route).toBeDefined();
    const integration = s.json.Resources[[...referencedIds(route![1].Properties.Target)][0]!]!;
    expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId('health')]));
    const roleId = logicalId(s.stack, s.stack.functions.functions.get('health')!.role as never);
    const statements = resourcesOf(s.json, 'AWS::IAM::Policy')
      .filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId))
      .flatMap(([, p]) => asList(p.Properties.PolicyDocument.Statement) as { Action: string | string[]; Resource: unknown }[]);
    const dynamo = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.map((st) => asList(st.Action))).toEqual([['dynamodb:GetItem']]);
    expect([...referencedIds(dynamo[0]!.Resource)]).toEqual([tableId('catalog')]);
  });

  test('its environment: the catalog table and the build version, no secret', () => {
    const synthesized = synthesize({ buildVersion: 'a1b2c3d' });
    const id = logicalId(synthesized.stack, synthesized.stack.functions.functions.get('health')!);
    const variables = synthesized.json.Resources[id]!.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables.BUILD_VERSION).toBe('a1b2c3d');
    expect(Object.keys(variables)).toContain('CATALOG_TABLE');
    for (const secret of ['PLAY_COOKIE_SECRET', 'SESSION_ID_KEY', 'JWT_ISSUER']) expect(Object.keys(variables)).not.toContain(secret);
  });
});
