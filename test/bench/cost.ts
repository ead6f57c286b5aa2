/**
 * The price of one million lifecycles, all in: the API lifecycle (create + validate + consume) and
 * the browser lifecycle (create + play page + `POST /play/session`, which consumes and sets the cookie). Every request passes
 * CloudFront (with the routing CloudFront Function), the HTTP API (with its access log) and one
 * Lambda invocation (with its log lines and X-Ray tracing, both enabled by infra/), and uses the
 * capacity units measured for it; the items a lifecycle leaves are stored (and backed up by PITR,
 * infra/tables.ts) for as long as their TTL keeps them. On-demand list prices, us-east-1, as of the
 * date below: re-check them on the AWS pricing pages before quoting the result.
 */
import { TRACING_DEFAULT } from '../../infra/config.js';
import { FUNCTION_MEMORY_MB } from '../../infra/functions.js';
import type { CapacityUse } from './capacity.js';

/** The list prices used (USD). */
export const PRICES = {
  date: '2026-11-23',
  region: 'us-east-1',
  /** DynamoDB on demand, Standard table class: per million read / write request units. */
  dynamodbReadPerMillion: 0.125,
  dynamodbWritePerMillion: 0.625,
  /** DynamoDB storage (Standard table class) and continuous backups (PITR), per GB-month. */
  dynamodbStoragePerGbMonth: 0.25,
  dynamodbPitrPerGbMonth: 0.2,
  /** Lambda on arm64: per GB-second (first tier) and per million requests. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** API Gateway HTTP API: per million requests (first 300 million a month). */
  httpApiPerMillion: 1.0,
  /** CloudFront: HTTPS requests per 10,000 (North America / Europe). */
  cloudFrontHttpsPer10k: 0.01,
  /** CloudFront Functions: per million invocations (the routing rewrite runs on every request). */
  cloudFrontFunctionPerMillion: 0.1,
  /** CloudFront data transfer out to the internet, per GB (first 10 TB, North America / Europe). */
  cloudFrontTransferOutPerGb: 0.085,
  /** CloudWatch Logs (Standard class): ingestion per GB, storage per GB-month. */
  logsIngestionPerGb: 0.5,
  logsStoragePerGbMonth: 0.03,
  /** X-Ray: per million traces recorded. */
  xrayPerMillionTraces: 5.0,
} as const;

/** Modelled constants (what this machine cannot measure). */
export const MODEL = {
  /** X-Ray's default sampling rule: the first request each second, then 5%: at volume, 5%. */
  xraySampledShare: 0.05,
  /** DynamoDB counts 100 bytes of overhead per stored item (and per index entry). */
  dynamodbItemOverheadBytes: 100,
  /** Headers CloudFront adds to a response (via, x-cache, x-amz-cf-pop, x-amz-cf-id, age), bytes. */
  cloudFrontHeaderBytes: 250,
  /** Log storage: kept for the stack's default retention (30 days, infra/stack.ts), billed on raw bytes (conservative: AWS bills compressed). */
  logRetentionMonths: 1,
} as const;

/**
 * Lambda's platform lines per invocation in the text log format (system log level INFO): START, END
 * and REPORT, the REPORT with its X-Ray line because tracing is active. Typical values; the byte
 * count is what matters. Lambda's JSON log format with system log level WARN drops all three.
 */
const PLATFORM_LINES = [
  'START RequestId: 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f Version: $LATEST\n',
  'END RequestId: 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f\n',
  'REPORT RequestId: 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 256 MB\tMax Memory Used: 97 MB\t\n' +
    'XRAY TraceId: 1-6742a1b2-3c4d5e6f7a8b9c0d1e2f3a4b\tSegmentId: 1a2b3c4d5e6f7a8b\tSampled: true\t\n',
] as const;

/** Bytes of the platform lines of one invocation. */
export const PLATFORM_BYTES = PLATFORM_LINES.reduce((s, l) => s + Buffer.byteLength(l), 0);

/**
 * One HTTP API access log line (the fields of ACCESS_LOG_FIELDS in infra/http-api.ts, typical
 * values: a browser's user agent), bytes.
 */
export const ACCESS_LOG_BYTES =
  Buffer.byteLength(
    JSON.stringify({
      requestId: 'bXk3QjRhLWxlYWQ=',
      ip: '203.0.113.42',
      method: 'POST',
      path: '/api/org-api-keys',
      routeKey: 'POST /api/org-api-keys',
      status: '200',
      responseLength: '312',
      latencyMs: '14',
      integrationStatus: '200',
      integrationLatencyMs: '13',
      integrationError: '-',
      userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    }),
  ) + 1;

/** One request of a lifecycle, as measured. */
export interface LifecycleStep {
  readonly name: string;
  readonly capacity: CapacityUse;
  /** Handler duration (ms) as Lambda bills it: whole milliseconds, at least 1. */
  readonly billedMs: number;
  /** The service's own log lines per request (bytes, measured). */
  readonly logBytes: number;
  /** Response bytes sent to the client (headers and body, measured; CloudFront's headers are added here). */
  readonly responseBytes: number;
  /** Audit records the request writes. */
  readonly auditRecords: number;
}

/** What a lifecycle leaves in DynamoDB (measured item sizes, retention from their TTL). */
export interface StoredItems {
  readonly tokenBytes: number;
  readonly tokenDays: number;
  readonly auditBytes: number;
  readonly auditDays: number;
}

/** Cost (USD) of one million lifecycles made of `steps`, by line item; `platformLines`: Lambda's START/END/REPORT are logged. */
export function lifecycleCost(steps: readonly LifecycleStep[], stored: StoredItems, platformLines: boolean, memoryMb = FUNCTION_MEMORY_MB) {
  const m = 1_000_000;
  const gb = 1024 ** 3;
  const n = steps.length;
  const read = steps.reduce((s, x) => s + x.capacity.read, 0);
  const write = steps.reduce((s, x) => s + x.capacity.write, 0);
  const gbSeconds = steps.reduce((s, x) => s + (x.billedMs / 1000) * (memoryMb / 1024), 0);
  const logBytes = steps.reduce((s, x) => s + x.logBytes + ACCESS_LOG_BYTES + (platformLines ? PLATFORM_BYTES : 0), 0);
  const outBytes = steps.reduce((s, x) => s + x.responseBytes + MODEL.cloudFrontHeaderBytes, 0);
  const audits = steps.reduce((s, x) => s + x.auditRecords, 0);
  const month = 30.4;
  const gbMonths = ((stored.tokenBytes * stored.tokenDays) / month + (audits * stored.auditBytes * stored.auditDays) / month) / gb;
  const items = {
    dynamodb_units: read * PRICES.dynamodbReadPerMillion + write * PRICES.dynamodbWritePerMillion,
    lambda: n * PRICES.lambdaPerMillionRequests + gbSeconds * m * PRICES.lambdaArmPerGbSecond,
    http_api: n * PRICES.httpApiPerMillion,
    cloudfront: n * (PRICES.cloudFrontHttpsPer10k * 100 + PRICES.cloudFrontFunctionPerMillion),
    logs_ingestion: ((logBytes * m) / gb) * PRICES.logsIngestionPerGb,
    logs_storage: ((logBytes * m) / gb) * MODEL.logRetentionMonths * PRICES.logsStoragePerGbMonth,
    // X-Ray only where the stack traces (context `tracing`, off by default).
    xray: TRACING_DEFAULT ? n * MODEL.xraySampledShare * PRICES.xrayPerMillionTraces : 0,
    data_transfer_out: ((outBytes * m) / gb) * PRICES.cloudFrontTransferOutPerGb,
    dynamodb_storage: gbMonths * m * PRICES.dynamodbStoragePerGbMonth,
    dynamodb_pitr: gbMonths * m * PRICES.dynamodbPitrPerGbMonth,
  };
  const total = Object.values(items).reduce((s, v) => s + v, 0);
  return { total, items, read, write, memoryMb, logBytesPerRequest: logBytes / n, requests: n };
}

/** What {@link lifecycleCost} returns. */
export type LifecycleCost = ReturnType<typeof lifecycleCost>;
