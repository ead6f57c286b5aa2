/**
 * The workers of THE workers table in the synthesized stack (`infra/workers.ts`, `infra/queues.ts`):
 * a function each with its trigger (the tables' streams, the delivery queue, the schedule), the
 * streams of the tables table, the queues and their dead-letter queues, each role's least privilege,
 * and the webhook alarms and dashboard row. The routes' functions: `stack.test.ts`.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FUNCTION_MEMORY_MB } from '../../infra/functions.js';
import { MAX_RECEIVE_COUNT, VISIBILITY_PER_TIMEOUT } from '../../infra/queues.js';
import { functionNames } from '../../infra/permissions.js';
import { workerEnvVars } from '../../shared/platform/env-parts.js';
import { EnvSchema } from '../../shared/platform/env.js';
import { DIMENSIONS, METRIC, METRIC_NAMESPACE } from '../../shared/platform/observability.js';
import type { WorkerDefinition } from '../../shared/platform/worker.js';
import { routes } from '../../shared/routes.js';
import type { RouteDefinition } from '../../shared/platform/route.js';
import { tables, type TableName } from '../../shared/tables.js';
import { workers } from '../../shared/workers.js';
import { asList, logicalId, lookups, referencedIds, resourcesOf, synthesize, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const tableNames = Object.keys(tables) as TableName[];
const { tableId, fnId } = lookups(() => s);
const byName = (name: string) => workers.find((w) => w.function === name)!;
const workerId = (name: string) => logicalId(s.stack, s.stack.workers.functions.get(name)!);
const workerProps = (name: string) => s.json.Resources[workerId(name)]!.Properties;
const deliveryQueueId = () => logicalId(s.stack, s.stack.queues.queues['webhook-deliveries'].queue);
const deadLettersId = () => logicalId(s.stack, s.stack.queues.queues['webhook-deliveries'].deadLetters);
const streamFailuresId = () => logicalId(s.stack, s.stack.queues.streamFailures);
const workerCases = workers.map((w) => [w.function, w] as const);

/** The worker of each trigger kind the design has (the table has one of each). */
const EVENTS = 'webhook-events';
const DUE = 'webhook-due';
const DELIVERY = 'webhook-delivery';

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** The statements of the one policy attached to a role. */
function statementsOfRole(roleId: string): Statement[] {
  const policies = resourcesOf(s.json, 'AWS::IAM::Policy').filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId));
  expect(policies).toHaveLength(1);
  return asList(policies[0]![1].Properties.PolicyDocument.Statement) as Statement[];
}
const roleIdOf = (fnProps: Record<string, any>) => fnProps.Role['Fn::GetAtt'][0] as string;
const statementsOf = (name: string) => statementsOfRole(roleIdOf(workerProps(name)));

/** Every (action, resource) pair a set of statements allows, resources as the logical id and attribute they name (`*` as is). */
function grants(statements: Statement[]): { action: string; resource: string }[] {
  const named = (resource: unknown): string[] => {
    if (resource === '*') return ['*'];
    const text = JSON.stringify(resource);
    const getAtt = /"Fn::GetAtt":\["(\w+)","(\w+)"\]/.exec(text);
    if (getAtt) return [`${getAtt[1]}.${getAtt[2]}${/\/index\//.test(text) ? '/index' : ''}`];
    return [...referencedIds(resource)];
  };
  return statements.flatMap((st) =>
    asList(st.Action).flatMap((action) => asList(st.Resource).flatMap((r) => named(r).map((resource) => ({ action, resource })))),
  );
}

describe('functions', () => {
  test('one function per worker of the workers table, beside one per function of the routes table', () => {
    const expected = [...functionNames(routes).map(fnId), ...workers.map((w) => workerId(w.function))];
    expect(
      resourcesOf(s.json, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(expected.sort());
  });

  test.each(workerCases)('%s: the settings every function shares, its own timeout and log group', (name, worker) => {
    const props = workerProps(name);
    expect(props).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: FUNCTION_MEMORY_MB,
      Timeout: worker.timeoutSeconds,
      TracingConfig: { Mode: 'PassThrough' },
    });
    const logGroupId = logicalId(s.stack, s.stack.workers.logGroups.get(name)!);
    expect(props.LoggingConfig).toEqual({
      LogGroup: { Ref: logGroupId },
      LogFormat: 'JSON',
      SystemLogLevel: 'WARN',
      ApplicationLogLevel: 'INFO',
    });
    expect(s.json.Resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
    expect(props.ReservedConcurrentExecutions).toBeUndefined();
  });

  test.each(workerCases)('%s: exactly the variables of its parts (and the logger’s), which parse with the env schema', (name, worker) => {
    const variables = Object.fromEntries(
      Object.entries(workerProps(name).Environment.Variables as Record<string, unknown>).filter(
        ([k]) => !/^(PARAMETERS_SECRETS_EXTENSION|SECRETS_MANAGER|SSM_PARAMETER_STORE)_/.test(k),
      ),
    );
    const reads: readonly string[] = workerEnvVars(worker);
    expect(Object.keys(variables).filter((k) => !reads.includes(k))).toEqual([]);
    for (const t of tableNames) {
      if (reads.includes(tables[t].envVar)) expect(variables[tables[t].envVar]).toEqual({ Ref: tableId(t) });
      else expect(variables).not.toHaveProperty(tables[t].envVar);
    }
    expect(variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: 'game-session-token-service', POWERTOOLS_LOG_LEVEL: 'INFO' });
    // Every table its role may touch is named in its environment.
    for (const t of Object.keys(worker.data) as TableName[]) expect(variables).toHaveProperty(tables[t].envVar);
    // A worker that sends to the queue knows its URL; no request reaches a worker: no origin secret.
    if (worker.sendsTo?.includes('webhook-deliveries')) expect(variables.WEBHOOK_DELIVERY_QUEUE_URL).toEqual({ Ref: deliveryQueueId() });
    if (worker.sendsTo?.includes('stream-failures'))
      expect(variables.WEBHOOK_STREAM_FAILURES_QUEUE_URL).toEqual({ Ref: streamFailuresId() });
    expect(variables).not.toHaveProperty('ORIGIN_VERIFY_SECRET_ARN');
    expect(variables).not.toHaveProperty('WEBHOOK_SECRET_KEY');
    const resolved = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : 'x'.repeat(64)]));
    expect(() => EnvSchema.parse(resolved)).not.toThrow();
    // The secrets extension only where a secret is read.
    expect(JSON.stringify(workerProps(name).Layers ?? []).includes('Parameters-and-Secrets')).toBe('WEBHOOK_SECRET_KEY_ARN' in variables);
  });

  test('the secret key of the endpoints’ secrets reaches the delivery worker only (by name, read at cold start)', () => {
    const having = workers.filter((w) => 'WEBHOOK_SECRET_KEY_ARN' in workerProps(w.function).Environment.Variables).map((w) => w.function);
    expect(having).toEqual([DELIVERY]);
    expect(workerProps(DELIVERY).Environment.Variables.WEBHOOK_SECRET_KEY_ARN).toEqual({
      Ref: logicalId(s.stack, s.stack.webhookSecretKey),
    });
  });
});

describe('triggers', () => {
  const mappings = () => resourcesOf(s.json, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
  const mappingsOf = (name: string) => mappings().filter((m) => referencedIds(m.FunctionName).has(workerId(name)));

  test('every event source mapping of the stack is a worker’s trigger', () => {
    const workerIds = new Set(workers.map((w) => workerId(w.function)));
    for (const m of mappings()) expect(workerIds.has([...referencedIds(m.FunctionName)][0]!)).toBe(true);
  });

  test('the events worker reads the streams of tokens, keys and counters: 100 records or 1 s, bisected, 10 tries, then the failures queue', () => {
    const worker = byName(EVENTS);
    expect(worker.trigger.kind).toBe('stream');
    const streamTables = worker.trigger.kind === 'stream' ? worker.trigger.tables : [];
    expect([...streamTables].sort()).toEqual(['counters', 'keys', 'tokens']);
    const found = mappingsOf(EVENTS);
    expect(found).toHaveLength(streamTables.length);
    for (const table of streamTables) {
      const mapping = found.find(
        (m) => JSON.stringify(m.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [tableId(table), 'StreamArn'] }),
      );
      expect(mapping).toMatchObject({
        StartingPosition: 'LATEST',
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 1,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [streamFailuresId(), 'Arn'] } } },
      });
    }
  });

  test('counters: only the rate-limit notices (partition key beginning notice#) invoke it; tokens and keys: every record', () => {
    const filterOf = (table: TableName) =>
      mappingsOf(EVENTS).find((m) => referencedIds(m.EventSourceArn).has(tableId(table)))!.FilterCriteria as
        { Filters: { Pattern: string }[] } | undefined;
    const counters = filterOf('counters')!.Filters;
    expect(counters).toHaveLength(1);
    expect(JSON.parse(counters[0]!.Pattern)).toEqual({ dynamodb: { Keys: { pk: { S: [{ prefix: 'notice#' }] } } } });
    // The declaration is where the prefix comes from (the local stand-ins apply the same one).
    const trigger = byName(EVENTS).trigger;
    expect(trigger.kind === 'stream' && trigger.keyPrefix).toEqual({ counters: 'notice#' });
    expect(filterOf('tokens')).toBeUndefined();
    expect(filterOf('keys')).toBeUndefined();
  });

  test('the delivery worker reads the delivery queue: its batch, partial batch failures, its concurrency at most', () => {
    const [mapping, ...others] = mappingsOf(DELIVERY);
    expect(others).toEqual([]);
    const trigger = byName(DELIVERY).trigger as Extract<WorkerDefinition['trigger'], { kind: 'queue' }>;
    expect(trigger).toMatchObject({ kind: 'queue', queue: 'webhook-deliveries', batchSize: 10, maxConcurrency: 20 });
    expect(mapping).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [deliveryQueueId(), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  test('the due worker runs every minute (an EventBridge rule that may invoke it), and has no event source mapping', () => {
    expect(mappingsOf(DUE)).toEqual([]);
    const rules = resourcesOf(s.json, 'AWS::Events::Rule').filter(([, r]) => referencedIds(r.Properties.Targets).has(workerId(DUE)));
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0]!;
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    const permissions = resourcesOf(s.json, 'AWS::Lambda::Permission').filter(([, p]) => referencedIds(p.Properties.SourceArn).has(ruleId));
    expect(permissions.map(([, p]) => [p.Properties.Principal, [...referencedIds(p.Properties.FunctionName)]])).toEqual([
      ['events.amazonaws.com', [workerId(DUE)]],
    ]);
  });

  test('no other rule or permission invokes a worker', () => {
    const workerIds = new Set(workers.map((w) => workerId(w.function)));
    const invoking = resourcesOf(s.json, 'AWS::Lambda::Permission').filter(([, p]) =>
      [...referencedIds(p.Properties.FunctionName)].some((id) => workerIds.has(id)),
    );
    expect(invoking).toHaveLength(1);
  });
});

describe('tables’ streams', () => {
  test.each(tableNames.map((n) => [n] as const))('%s: a stream of the view the tables table names, or none', (name) => {
    const spec = s.json.Resources[tableId(name)]!.Properties.StreamSpecification;
    const view = (tables[name] as { stream?: string }).stream;
    if (view) expect(spec).toEqual({ StreamViewType: view });
    else expect(spec).toBeUndefined();
  });

  test('tokens and keys keep old and new images (status changes, key changes), counters the new image (the notices)', () => {
    const view = (name: TableName) => s.json.Resources[tableId(name)]!.Properties.StreamSpecification?.StreamViewType;
    expect([view('tokens'), view('keys'), view('counters')]).toEqual(['NEW_AND_OLD_IMAGES', 'NEW_AND_OLD_IMAGES', 'NEW_IMAGE']);
  });

  test('the webhooks table is there like the others: retained, on demand, TTL on `ttl`', () => {
    const resource = s.json.Resources[tableId('webhooks')]!;
    expect(resource.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(resource.DeletionPolicy).toBe('Retain');
  });
});

describe('queues', () => {
  const queue = (id: string) => s.json.Resources[id]!.Properties;

  test('the delivery queue: visibility 6 times its consumer’s timeout, dead letters after 5 receives, SQS-managed encryption, 14 days', () => {
    const consumerTimeout = byName(DELIVERY).timeoutSeconds;
    expect(VISIBILITY_PER_TIMEOUT).toBeGreaterThanOrEqual(6);
    expect(queue(deliveryQueueId())).toMatchObject({
      VisibilityTimeout: VISIBILITY_PER_TIMEOUT * consumerTimeout,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] }, maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    expect(MAX_RECEIVE_COUNT).toBe(5);
    expect(queue(deliveryQueueId()).VisibilityTimeout).toBeGreaterThanOrEqual(6 * workerProps(DELIVERY).Timeout);
  });

  test('the dead-letter queues (deliveries, stream batches) keep 14 days, encrypted', () => {
    for (const id of [deadLettersId(), streamFailuresId()]) {
      expect(queue(id)).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    }
  });

  test('the dead-letter queues and the workers are stack outputs (the runbook’s redrive and replay name them)', () => {
    expect(s.json.Outputs).toMatchObject({
      WebhookDeliveriesDeadLettersUrl: { Value: { Ref: deadLettersId() } },
      WebhookDeliveriesDeadLettersArn: { Value: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] } },
      WebhookStreamFailuresUrl: { Value: { Ref: streamFailuresId() } },
      WebhookEventsFunctionName: { Value: { Ref: workerId(EVENTS) } },
    });
  });

  test('three queues, each refusing plain HTTP', () => {
    const queues = resourcesOf(s.json, 'AWS::SQS::Queue').map(([id]) => id);
    expect(queues.sort()).toEqual([deliveryQueueId(), deadLettersId(), streamFailuresId()].sort());
    for (const id of queues) {
      const policies = resourcesOf(s.json, 'AWS::SQS::QueuePolicy').filter(([, p]) => referencedIds(p.Properties.Queues).has(id));
      expect(policies).toHaveLength(1);
      const statements = asList(policies[0]![1].Properties.PolicyDocument.Statement) as Record<string, any>[];
      expect(statements).toEqual([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]);
    }
  });
});

describe('least privilege', () => {
  /** Every role's grants in the stack, by the function it runs (routes' and workers'). */
  const allRoles = () => {
    const fns = [...s.stack.functions.functions, ...s.stack.workers.functions];
    return fns.map(([name, fn]) => [name, grants(statementsOfRole(logicalId(s.stack, fn.role as never)))] as const);
  };
  const whoMay = (action: string, resource: string) =>
    allRoles()
      .filter(([, g]) => g.some((x) => x.action === action && x.resource === resource))
      .map(([name]) => name)
      .sort();

  test.each(workerCases)('%s: exactly the DynamoDB table actions its declaration’s data names', (name, worker) => {
    const granted: Record<string, string[]> = {};
    const indexed = new Set<string>();
    for (const { action, resource } of grants(statementsOf(name))) {
      const table = tableNames.find((t) => resource === `${tableId(t)}.Arn` || resource === `${tableId(t)}.Arn/index`);
      if (!action.startsWith('dynamodb:') || !table) continue;
      if (resource.endsWith('/index')) indexed.add(table);
      else granted[table] = [...(granted[table] ?? []), action.slice('dynamodb:'.length)].sort();
    }
    // Index ARNs exactly where Query is declared on a table that has indexes (as for the routes: infra/permissions.ts).
    const queried = (Object.entries(worker.data) as [TableName, readonly string[]][]).filter(
      ([t, actions]) => actions.includes('Query') && tables[t].indexes.length > 0,
    );
    expect([...indexed].sort()).toEqual(queried.map(([t]) => t).sort());
    const declared = Object.fromEntries(Object.entries(worker.data).map(([t, actions]) => [t, [...actions].sort()]));
    expect(granted).toEqual(declared);
  });

  test.each(workerCases)(
    '%s: no wildcard action; Resource "*" only for X-Ray and (stream workers) ListStreams; logs only to its own group',
    (name, worker) => {
      const g = grants(statementsOf(name));
      for (const { action } of g) expect(action).not.toContain('*');
      const anywhere = [...new Set(g.filter((x) => x.resource === '*').map((x) => x.action))].sort();
      const streams = worker.trigger.kind === 'stream' ? ['dynamodb:ListStreams'] : [];
      expect(anywhere).toEqual([...streams, 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'].sort());
      const logGroupId = logicalId(s.stack, s.stack.workers.logGroups.get(name)!);
      expect([...new Set(g.filter((x) => x.action.startsWith('logs:')).map((x) => x.resource))]).toEqual([`${logGroupId}.Arn`]);
    },
  );

  test('stream reading: the events worker only, on exactly the streams of its trigger’s tables', () => {
    for (const action of ['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']) {
      for (const t of tableNames) {
        const readers = whoMay(action, `${tableId(t)}.StreamArn`);
        expect([t, readers]).toEqual([t, ['tokens', 'keys', 'counters'].includes(t) ? [EVENTS] : []]);
      }
    }
    expect(whoMay('dynamodb:ListStreams', '*')).toEqual([EVENTS]);
  });

  test('the delivery worker cannot touch the tokens or keys tables (nor their streams)', () => {
    const touched = grants(statementsOf(DELIVERY)).filter((x) =>
      [tableId('tokens'), tableId('keys')].some((id) => x.resource.startsWith(`${id}.`)),
    );
    expect(touched).toEqual([]);
  });

  test('the events and due workers read no secret; the delivery worker the webhook secret key alone', () => {
    for (const name of [EVENTS, DUE]) expect(grants(statementsOf(name)).filter((x) => x.action.startsWith('secretsmanager:'))).toEqual([]);
    const reads = grants(statementsOf(DELIVERY)).filter((x) => x.action === 'secretsmanager:GetSecretValue');
    expect(reads.map((x) => x.resource)).toEqual([logicalId(s.stack, s.stack.webhookSecretKey)]);
  });

  test('sqs:SendMessage on the delivery queue: exactly the workers and the route functions that declare sending to it (the events and due workers, the delivery worker’s next attempts; retry, test, recover and the MCP server)', () => {
    const workerSenders = workers.filter((w) => w.sendsTo?.includes('webhook-deliveries')).map((w) => w.function);
    const routeSenders = [
      ...new Set((routes as readonly RouteDefinition[]).filter((r) => r.sendsTo?.includes('webhook-deliveries')).map((r) => r.function)),
    ];
    expect(workerSenders.sort()).toEqual([EVENTS, DUE, DELIVERY].sort());
    expect(routeSenders.sort()).toEqual(['mcp', 'recover-webhook', 'retry-webhook-delivery', 'test-webhook']);
    // list-webhook-deliveries has the queue's URL (its part can send) but declares no sending: no grant.
    expect(whoMay('sqs:SendMessage', `${deliveryQueueId()}.Arn`)).toEqual([...workerSenders, ...routeSenders].sort());
  });

  test('the events worker may send to the stream failures queue (where it keeps a record it cannot read), and no other function may', () => {
    expect(byName(EVENTS).sendsTo).toContain('stream-failures');
    expect(whoMay('sqs:SendMessage', `${streamFailuresId()}.Arn`)).toEqual([EVENTS]);
  });

  test('only the delivery worker consumes the delivery queue; nobody reads a dead-letter queue; only the stream worker records its failed batches', () => {
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(whoMay(action, `${deliveryQueueId()}.Arn`)).toEqual([DELIVERY]);
    }
    const onDeadLetters = allRoles().flatMap(([name, g]) =>
      g.filter((x) => x.resource === `${deadLettersId()}.Arn`).map((x) => [name, x.action]),
    );
    expect(onDeadLetters).toEqual([]);
    const onFailures = allRoles().filter(([, g]) => g.some((x) => x.resource === `${streamFailuresId()}.Arn`));
    expect(onFailures.map(([name]) => name)).toEqual([EVENTS]);
    expect(whoMay('sqs:ReceiveMessage', `${streamFailuresId()}.Arn`)).toEqual([]);
  });

  test('roles carry no AWS managed policy', () => {
    for (const w of workers) expect(s.json.Resources[roleIdOf(workerProps(w.function))]!.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('monitoring', () => {
  const alarms = () => resourcesOf(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const topicId = () => logicalId(s.stack, s.stack.ownAlarmTopic!.topic);

  test('a message in either dead-letter queue pages (the stream batches’ and the deliveries’), through the alarm topic', () => {
    for (const id of [deadLettersId(), streamFailuresId()]) {
      const onQueue = alarms().filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && referencedIds(a.Dimensions).has(id));
      expect(onQueue).toHaveLength(1);
      expect(onQueue[0]).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        AlarmActions: [{ Ref: topicId() }],
        OKActions: [{ Ref: topicId() }],
      });
      expect(onQueue[0]!.AlarmDescription).toMatch(/\(docs\/runbook\.md#webhook-dead-letters\)$/);
    }
  });

  test('a stream record the events worker could not read pages: WebhookRecordsUnreadable of the service, through the alarm topic', () => {
    const onMetric = alarms().filter((a) => a.MetricName === METRIC.webhookRecordsUnreadable);
    expect(onMetric).toHaveLength(1);
    expect(onMetric[0]).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      Dimensions: [{ Name: DIMENSIONS.service, Value: 'game-session-token-service' }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId() }],
    });
    expect(onMetric[0]!.AlarmDescription).toMatch(/\(docs\/runbook\.md#webhook-records-unreadable\)$/);
  });

  test('the delivery failure rate: WebhookFailed over all attempts of the service’s own metrics, past a minimum of attempts', () => {
    const [rate, ...others] = alarms().filter((a) => JSON.stringify(a.Metrics ?? []).includes(METRIC.webhookFailed));
    expect(others).toEqual([]);
    type Query = {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] }; Stat: string };
    };
    const queries = rate!.Metrics as Query[];
    const stats = queries.flatMap((q) => (q.MetricStat ? [q.MetricStat] : []));
    expect(stats.map((m) => m.Metric.MetricName).sort()).toEqual([METRIC.webhookDelivered, METRIC.webhookFailed]);
    for (const m of stats) {
      expect(m.Metric.Namespace).toBe(METRIC_NAMESPACE);
      expect(m.Metric.Dimensions).toEqual([{ Name: DIMENSIONS.service, Value: 'game-session-token-service' }]);
      expect(m.Stat).toBe('Sum');
    }
    expect(rate).toMatchObject({ Threshold: 50, EvaluationPeriods: 3, DatapointsToAlarm: 3, AlarmActions: [{ Ref: topicId() }] });
    expect(rate!.AlarmDescription).toMatch(/\(docs\/runbook\.md#webhook-failure-rate\)$/);
    // The expression is valid JavaScript once IF is a function: evaluate a period of it.
    const expression = queries.find((q) => q.Expression)!.Expression!;
    const breaches = (delivered: number, failed: number): boolean =>
      new Function('delivered', 'failed', 'IF', `return ${expression};`)(delivered, failed, (c: boolean, a: number, b: number) =>
        c ? a : b,
      ) >= rate!.Threshold;
    expect(breaches(0, 0)).toBe(false); // no attempts at all
    expect(breaches(0, 5)).toBe(false); // one endpoint's few failures
    expect(breaches(100, 10)).toBe(false);
    expect(breaches(20, 30)).toBe(true);
    expect(breaches(0, 200)).toBe(true); // nothing delivered
  });

  test.each(workerCases)('%s: alarms on its errors (runbook worker-errors) and throttles', (name) => {
    const errors = alarms().find((a) => a.MetricName === 'Errors' && referencedIds(a.Dimensions).has(workerId(name)));
    expect(errors).toMatchObject({
      Namespace: 'AWS/Lambda',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      AlarmActions: [{ Ref: topicId() }],
    });
    expect(errors!.AlarmDescription).toMatch(/\(docs\/runbook\.md#worker-errors\)$/);
    const throttles = alarms().find((a) => a.MetricName === 'Throttles' && referencedIds(a.Dimensions).has(workerId(name)));
    expect(throttles).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1 });
  });

  test('thresholds of the failure rate come from the context', () => {
    const custom = synthesize({ alarmThresholds: { webhookFailureRatePercent: 20, minWebhookAttempts: 50 } });
    const [rate] = resourcesOf(custom.json, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter((a) => JSON.stringify(a.Metrics ?? []).includes(METRIC.webhookFailed));
    expect(rate!.Threshold).toBe(20);
    expect(JSON.stringify(rate!.Metrics)).toContain('delivered + failed >= 50');
  });

  test('the dashboard’s webhook row: delivered, failed, attempt time p50 and p99, dead letters, the events worker’s iterator age', () => {
    const [[, dashboard]] = resourcesOf(s.json, 'AWS::CloudWatch::Dashboard') as unknown as [
      [string, { Properties: { DashboardBody: unknown } }],
    ];
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      'Webhook attempts',
      'Webhook attempt time (ms)',
      'Webhook queues and dead letters',
      'Stream iterator age (ms, max)',
    ]) {
      expect(body).toContain(title);
    }
    for (const name of [METRIC.webhookDelivered, METRIC.webhookFailed, METRIC.webhookLatency]) expect(body).toContain(name);
    expect(body).toMatch(new RegExp(`${METRIC.webhookLatency}.{0,400}"stat\\\\":\\\\"p50`));
    expect(body).toMatch(new RegExp(`${METRIC.webhookLatency}.{0,400}"stat\\\\":\\\\"p99`));
    for (const id of [deliveryQueueId(), deadLettersId(), streamFailuresId()]) expect(body).toContain(id);
    expect(body).toMatch(new RegExp(`IteratorAge.{0,200}${workerId(EVENTS)}`));
    // And each worker in the function rows (duration, invocations, errors, ...).
    for (const w of workers) expect(body).toContain(workerId(w.function));
  });
});

test('cdk-nag: nothing unacknowledged on the workers and queues', () => {
  const report = new AwsSolutionsChecks().validateScope(s.app);
  const ours = report.violations.flatMap((v) =>
    v.violatingResources.filter((r) => /\/(Workers|Queues)\//.test(r.constructPath ?? '')).map((r) => `${v.ruleName}: ${r.constructPath}`),
  );
  expect(ours).toEqual([]);
});
