/**
 * The price of one million full lifecycles (create + validate + consume): every request passes
 * CloudFront (with the routing CloudFront Function), the HTTP API and one Lambda invocation, and
 * consumes the capacity units measured for it. On-demand list prices, us-east-1, as of the date
 * below: re-check them on the AWS pricing pages before quoting the result.
 */
import { FUNCTION_MEMORY_MB } from '../../infra/functions.js';
import type { CapacityUse } from './capacity.js';

/** The list prices used (USD). */
export const PRICES = {
  date: '2026-11-23',
  region: 'us-east-1',
  /** DynamoDB on demand, Standard table class: per million read / write request units. */
  dynamodbReadPerMillion: 0.125,
  dynamodbWritePerMillion: 0.625,
  /** Lambda on arm64: per GB-second (first tier) and per million requests. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** API Gateway HTTP API: per million requests (first 300 million a month). */
  httpApiPerMillion: 1.0,
  /** CloudFront: HTTPS requests per 10,000 (North America / Europe). */
  cloudFrontHttpsPer10k: 0.01,
  /** CloudFront Functions: per million invocations (the routing rewrite runs on every request). */
  cloudFrontFunctionPerMillion: 0.1,
} as const;

/** One request of the lifecycle: its capacity and its handler time. */
export interface LifecycleStep {
  readonly capacity: CapacityUse;
  /** Handler duration (ms) as Lambda bills it: whole milliseconds, at least 1. */
  readonly billedMs: number;
}

/** Cost (USD) of one million lifecycles made of `steps`, in total and by service. */
export function lifecycleCost(steps: readonly LifecycleStep[], memoryMb = FUNCTION_MEMORY_MB) {
  const m = 1_000_000;
  const n = steps.length;
  const read = steps.reduce((s, x) => s + x.capacity.read, 0);
  const write = steps.reduce((s, x) => s + x.capacity.write, 0);
  const gbSeconds = steps.reduce((s, x) => s + (x.billedMs / 1000) * (memoryMb / 1024), 0);
  const parts = {
    dynamodb: read * PRICES.dynamodbReadPerMillion + write * PRICES.dynamodbWritePerMillion,
    lambda: n * PRICES.lambdaPerMillionRequests + gbSeconds * m * PRICES.lambdaArmPerGbSecond,
    http_api: n * PRICES.httpApiPerMillion,
    cloudfront: n * (PRICES.cloudFrontHttpsPer10k * 100 + PRICES.cloudFrontFunctionPerMillion),
  };
  return { total: parts.dynamodb + parts.lambda + parts.http_api + parts.cloudfront, parts, read, write, memoryMb };
}
