/**
 * The names of the service's own CloudWatch metrics and their dimensions, which the functions write
 * (`shared/platform/observability/metrics.ts`, embedded metric format lines) and the dashboard and alarms read
 * (`infra/monitoring.ts`): one constant each, so that renaming a metric cannot silently blind an
 * alarm. A module of its own, so that infra imports the words without the metrics code.
 */

/** The namespace of every metric the service writes. */
export const METRIC_NAMESPACE = 'GameSessionTokenService';

/**
 * The dimensions. Each is low-cardinality by construction: `operation` is a routes-table name,
 * `reason` an error class of THE error table, `tool` an MCP tool of the server (or `unknown`).
 * No key, org, token or request id is ever a dimension (each value would be a metric of its own).
 * Every set also names `service` (POWERTOOLS_SERVICE_NAME).
 */
export const DIMENSIONS = { service: 'service', operation: 'operation', reason: 'reason', tool: 'tool' } as const;

/** The metrics, by what they count. */
export const METRIC = {
  /** Every request answered, per operation (Count). */
  requests: 'Requests',
  /** The handler's time per request, per operation (Milliseconds; alarms read p99). */
  latency: 'Latency',
  /**
   * 1 for a request answered 5xx, 0 otherwise, per operation: its Average is the 5xx ratio and its
   * Sum the count, so one metric serves both the alarm and the graph.
   */
  serverErrors: 'ServerErrors',
  /** Requests refused below 500, per operation and reason (the error's name: `RateLimited`, `Unauthenticated`, ...). */
  refusals: 'Refusals',
  /** DynamoDB calls DynamoDB refused for capacity (each attempt), per operation. */
  dynamoThrottles: 'DynamoThrottles',
  /** DynamoDB attempts repeated by the client's retry policy (`shared/platform/dynamo/client.ts`), per operation. */
  dynamoRetries: 'DynamoRetries',
  /** Session tokens minted (create-session, MCP create_session), per operation. */
  tokensMinted: 'TokensMinted',
  /** Session tokens consumed (consume-session), per operation. */
  tokensConsumed: 'TokensConsumed',
  /** Session tokens revoked (revoke-session, MCP revoke_session), per operation. */
  tokensRevoked: 'TokensRevoked',
  /** Stored answers given again under an `Idempotency-Key`, per operation. */
  idempotentReplays: 'IdempotentReplays',
  /** MCP `tools/call` requests, per tool. */
  mcpToolCalls: 'McpToolCalls',
} as const;

/** A metric's name. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];
