/**
 * When the alarms page, and where the runbook explains each: every threshold has a default (reasoned in docs/deploy.md, "Alarms") and
 * may be overridden from the CDK context (`-c alarms='{"latencyP99Ms":800}'`). A module of its own,
 * so that the context parser reads the shape without the constructs.
 */
import { z } from 'zod';
import { contextObject } from './context-json.js';

/** The alarms' thresholds. */
export interface AlarmThresholds {
  /** Share of an operation's requests answered 5xx, in percent, in 3 of 5 one-minute periods. */
  readonly serverErrorRatePercent: number;
  /** Fewer requests than this in a minute never make a ratio (one failure of two requests is not 50% of anything). */
  readonly minRequestsPerMinute: number;
  /** In a minute of fewer than `minRequestsPerMinute` requests, this many 5xx make the minute breach (quiet operations page too). */
  readonly quietMinuteServerErrors: number;
  /** An operation's p99 handler time, in ms, in 3 of 3 five-minute periods. */
  readonly latencyP99Ms: number;
  /** Requests API Gateway answered without any function (its throttling, integration failures), per 5 minutes, in 2 of 3 periods. */
  readonly unservedRequests: number;
  /** The account's concurrent executions (Lambda's default quota: 1,000), in 2 of 3 one-minute periods. */
  readonly accountConcurrency: number;
  /** DynamoDB throttle events of one table or index per 5 minutes, in 2 of 3 periods (the service retries a few). */
  readonly dynamoThrottleEvents: number;
  /** CloudFront's 5xx error rate, in percent, in 3 of 5 one-minute periods (in us-east-1, where its metrics live: the service stack's or `edge-alarms.ts`). */
  readonly edge5xxRatePercent: number;
  /** Share of webhook delivery attempts that failed, in percent, in 3 of 3 five-minute periods. */
  readonly webhookFailureRatePercent: number;
  /** Fewer attempts than this in 5 minutes never make a failure rate (one endpoint's one failure is not a fault of the service). */
  readonly minWebhookAttempts: number;
}

/** The defaults (docs/deploy.md, "Alarms", says why each). */
export const DEFAULT_THRESHOLDS: AlarmThresholds = {
  serverErrorRatePercent: 5,
  minRequestsPerMinute: 5,
  quietMinuteServerErrors: 2,
  latencyP99Ms: 1_000,
  unservedRequests: 10,
  accountConcurrency: 800,
  dynamoThrottleEvents: 10,
  edge5xxRatePercent: 5,
  webhookFailureRatePercent: 50,
  minWebhookAttempts: 20,
};

const positive = z.coerce.number().positive();

/** The context's `alarms` object: any of the thresholds, as JSON (a `-c` string) or an object (`cdk.json`). */
export const AlarmThresholdsSchema = z.preprocess(
  contextObject,
  z.strictObject({
    serverErrorRatePercent: positive.max(100).optional(),
    minRequestsPerMinute: positive.optional(),
    quietMinuteServerErrors: positive.optional(),
    latencyP99Ms: positive.optional(),
    unservedRequests: positive.optional(),
    accountConcurrency: positive.optional(),
    dynamoThrottleEvents: positive.optional(),
    edge5xxRatePercent: positive.max(100).optional(),
    webhookFailureRatePercent: positive.max(100).optional(),
    minWebhookAttempts: positive.optional(),
  }),
);

/** The section of docs/runbook.md for each kind of alarm (a test holds them against its headings). */
export const RUNBOOK_ENTRIES = [
  'operation-5xx-ratio',
  'operation-p99-latency',
  'api-unserved',
  'function-errors',
  'function-throttles',
  'account-concurrency',
  'dynamodb-throttles',
  'dynamodb-system-errors',
  'edge-5xx-rate',
  'worker-errors',
  'webhook-dead-letters',
  'webhook-failure-rate',
  'webhook-records-unreadable',
] as const;
export type RunbookEntry = (typeof RUNBOOK_ENTRIES)[number];
