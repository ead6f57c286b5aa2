/**
 * One Lambda function per worker of THE workers table (`shared/workers.ts`): the functions no client
 * calls, run by a DynamoDB stream, a queue or the clock. Built as the routes' functions are
 * (`functions.ts`: the same bundling, size, runtime, logging), each with its own role: the DynamoDB
 * actions its declaration's `data` names, sending to the queues it `sendsTo`, the secrets its
 * environment names; its trigger adds reading its stream or its queue. Its environment is that of its
 * `parts`.
 */
import { Duration } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition, type IEventSource } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workerEnvVars, type EnvVar } from '../shared/platform/env-parts.js';
import type { WorkerDefinition, WorkerTrigger } from '../shared/platform/worker.js';
import { tables, type TableName } from '../shared/tables.js';
import {
  commonFunctionProps,
  functionCode,
  functionLogGroup,
  functionRole,
  sendStatement,
  serviceConfig,
  type FunctionSettings,
} from './functions.js';
import { pascalCase } from './construct-ids.js';
import { SEND_URL_VARS, type ServiceQueues } from './queues.js';
import type { ServiceTables } from './tables.js';

/**
 * How a stream trigger reads: 100 records or 1 second, whichever comes first; a failing batch is
 * halved until the failing record is alone (the worker reports the first record it failed), each
 * batch tried 10 times at most, then recorded on the stream failures queue so the shard moves on.
 * LATEST: a new mapping starts at the stream's end (no replay of the table's last 24 hours).
 */
const STREAM_READING = {
  startingPosition: StartingPosition.LATEST,
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  bisectBatchOnError: true,
  retryAttempts: 10,
  reportBatchItemFailures: true,
} as const;

export interface ServiceWorkersProps {
  readonly workers: readonly WorkerDefinition[];
  readonly tables: ServiceTables;
  /** The service's settings (as the routes' functions get them), the queues' URLs among them. */
  readonly settings: FunctionSettings;
  readonly queues: ServiceQueues;
  /** The secrets the code reads, by the variable that names them: a worker reads one exactly when its environment has that variable. */
  readonly secrets: Readonly<Partial<Record<EnvVar, ISecret>>>;
  readonly logRetention: RetentionDays;
  /** Shown in each description: a new revision makes CloudFormation resolve the secrets again. */
  readonly secretsRevision: number;
  readonly tracing: boolean;
  /** Where a worker's code is: `functions/<name>.ts` unless given (a test of the stack before the handler exists). */
  readonly entry?: (worker: WorkerDefinition) => string;
}

/** The workers of the service, by their workers-table name. */
export class ServiceWorkers extends Construct {
  readonly functions: ReadonlyMap<string, NodejsFunction>;
  readonly logGroups: ReadonlyMap<string, LogGroup>;
  /** What runs each worker (its trigger's kind). */
  readonly triggers: ReadonlyMap<string, WorkerTrigger['kind']>;

  constructor(scope: Construct, id: string, props: ServiceWorkersProps) {
    super(scope, id);
    const config = serviceConfig(props.tables, props.settings);
    const functions = new Map<string, NodejsFunction>();
    const logGroups = new Map<string, LogGroup>();
    for (const worker of props.workers) {
      const name = worker.function;
      const reads = workerEnvVars(worker);
      checkQueueVariables(worker, reads);
      const logGroup = functionLogGroup(this, `${pascalCase(name)}Logs`, props.logRetention);
      const role = functionRole(this, `${pascalCase(name)}Role`, {
        description: `Runs the ${name} worker: ${worker.summary}`.slice(0, 1000),
        access: worker.data,
        config,
        logGroup,
        reads,
        secrets: props.secrets,
      });
      for (const queue of worker.sendsTo ?? []) role.addToPolicy(sendStatement(props.queues.sendTarget(queue)));
      const suffix = ` (secrets revision ${props.secretsRevision})`;
      const fn = new NodejsFunction(
        this,
        pascalCase(name),
        commonFunctionProps(config, {
          code: functionCode(name, props.entry?.(worker)),
          role,
          logGroup,
          description: worker.summary.slice(0, 256 - suffix.length) + suffix,
          timeout: Duration.seconds(worker.timeoutSeconds),
          reads,
          readsSecrets: reads.some((variable) => variable in props.secrets),
          tracing: props.tracing,
        }),
      );
      this.trigger(fn, worker.trigger, props);
      functions.set(name, fn);
      logGroups.set(name, logGroup);
    }
    this.functions = functions;
    this.logGroups = logGroups;
    this.triggers = new Map(props.workers.map((worker) => [worker.function, worker.trigger.kind]));
  }

  /** What runs a worker: its event source mappings (which grant reading the stream or the queue), or its schedule. */
  private trigger(fn: NodejsFunction, trigger: WorkerTrigger, props: ServiceWorkersProps): void {
    switch (trigger.kind) {
      case 'stream':
        for (const name of trigger.tables) fn.addEventSource(streamSource(name, props.tables[name], trigger, props.queues.streamFailures));
        return;
      case 'queue':
        fn.addEventSource(
          new SqsEventSource(props.queues.queues[trigger.queue].queue, {
            batchSize: trigger.batchSize,
            maxConcurrency: trigger.maxConcurrency,
            reportBatchItemFailures: true,
          }),
        );
        return;
      case 'schedule':
        // A missed run costs nothing: the next one starts from the due sweep's watermark (the
        // oldest minute not swept whole), so the target keeps EventBridge's default retries only.
        new Rule(this, `${fn.node.id}Schedule`, {
          description: `Runs ${fn.node.id} every ${trigger.everyMinutes} minute(s)`,
          schedule: Schedule.rate(Duration.minutes(trigger.everyMinutes)),
          targets: [new LambdaFunction(fn)],
        });
        return;
    }
  }
}

/** A table's stream as a worker's event source, passing only the records whose partition key begins with the trigger's prefix for it. */
function streamSource(name: TableName, table: Table, trigger: Extract<WorkerTrigger, { kind: 'stream' }>, failures: IQueue): IEventSource {
  const prefix = trigger.keyPrefix?.[name];
  const key = tables[name].partitionKey;
  if (prefix !== undefined && key.type !== 'S') throw new Error(`keyPrefix on ${name}: its partition key ${key.name} is not a string`);
  return new DynamoEventSource(table, {
    ...STREAM_READING,
    onFailure: new SqsDlq(failures),
    filters:
      prefix === undefined
        ? undefined
        : [FilterCriteria.filter({ dynamodb: { Keys: { [key.name]: { S: FilterRule.beginsWith(prefix) } } } })],
  });
}

/** A worker that sends to a queue must have its URL in its environment (its parts): checked at synth, not at the first message. */
function checkQueueVariables(worker: WorkerDefinition, reads: readonly EnvVar[]): void {
  for (const queue of worker.sendsTo ?? []) {
    const variable = SEND_URL_VARS[queue];
    if (!reads.includes(variable))
      throw new Error(`worker ${worker.function} uses queue ${queue}, but none of its parts reads ${variable}`);
  }
}
