/**
 * The line every request ends with, and its metrics: what on-call reads first. Its level says how
 * the request ended (ERROR: 5xx; WARN: a refusal that may be abuse or a partner out of quota: 401,
 * 403, 429; INFO: everything else), a refusal names its reason (the error's name and the message the
 * caller got), and code that holds the call may add fields of its own ({@link annotate}: the MCP
 * method and tool) or note a tool refused inside an MCP answer ({@link noteToolRefusal}). The
 * message words are constants ({@link REQUEST_ANSWERED}, {@link REQUEST_FAILED}): on-call's Logs
 * Insights queries (docs/runbook.md) match them and the benchmark reads their durations, so that
 * rewording the line is a visible change.
 */
import type { CallContext } from '../call.js';
import { requestMetrics } from './metrics.js';
import { namedError } from '../http/answers.js';
import { logger } from './logger.js';

/** A request answered below 500 (INFO; WARN for 401, 403, 429), with its operation, status, request id and duration. */
export const REQUEST_ANSWERED = 'request';
/** A request answered 5xx (ERROR), with the same fields and the error. */
const REQUEST_FAILED = 'request failed';

/** Refusals logged at WARN: a credential refused (repeated, a probe) or a key out of quota. */
const WARNED = new Set([401, 403, 429]);

/** Fields added to a request's line by the code serving it, by its call. */
const annotations = new WeakMap<CallContext, Record<string, unknown>>();

/** Add fields to the line of the request `call` belongs to (low in number; never a secret). */
export function annotate(call: CallContext, fields: Record<string, unknown>): void {
  annotations.set(call, { ...annotations.get(call), ...fields });
}

/** The reason of a tool refused inside an MCP answer (HTTP 200), by its call. */
const toolRefusals = new WeakMap<CallContext, string>();

/**
 * Record that a tool of the request `call` belongs to was refused inside its answer (a tool error
 * with HTTP 200): the line names the error, and the metrics count a refusal under its name, like
 * a REST refusal.
 */
export function noteToolRefusal(call: CallContext, error: Error): void {
  toolRefusals.set(call, error.name);
  annotate(call, { tool_error_name: error.name, tool_error_message: error.message });
}

/** What the bundle knows of a request once it is answered. */
export interface AnsweredRequest {
  readonly operation: string;
  readonly status: number;
  readonly requestId: string;
  readonly durationMs: number;
  readonly call: CallContext | undefined;
  /** What ended the request, when something was thrown (or a refusal was stored for repeats). */
  readonly error: unknown;
  /** A stored answer given again under an `Idempotency-Key`. */
  readonly replayed: boolean;
  /** Further fields of the bundle (key prefix, actor). */
  readonly fields: Record<string, unknown>;
}

/** Write a request's line, which also carries its metrics. */
export function logRequest(request: AnsweredRequest): void {
  const { status } = request;
  const refused = status >= 400 && status < 500;
  const named = refused ? namedError(request.error) : undefined;
  const reason = refused ? (named?.name ?? `Http${status}`) : undefined;
  const annotated = request.call ? annotations.get(request.call) : undefined;
  const fields = {
    operation: request.operation,
    status,
    request_id: request.requestId,
    duration_ms: request.durationMs,
    ...(request.call?.gatewayRequestId !== undefined && request.call.gatewayRequestId !== request.requestId
      ? { gateway_request_id: request.call.gatewayRequestId }
      : {}),
    source_ip: request.call?.sourceIp,
    ...request.fields,
    ...(request.replayed ? { idempotent_replayed: true } : {}),
    ...(reason !== undefined ? { error_name: reason, error_message: named?.message } : {}),
    ...annotated,
  };
  // A tool refused inside an MCP answer (HTTP 200, a tool error) is a refusal too, under its reason.
  const toolRefusal = request.call ? toolRefusals.get(request.call) : undefined;
  // The line is also the request's metrics (embedded metric format): CloudWatch reads them from it.
  const line = {
    ...fields,
    ...requestMetrics({
      operation: request.operation,
      status,
      durationMs: request.durationMs,
      reason: reason ?? toolRefusal,
      replayed: request.replayed,
    }),
  };
  if (status >= 500) logger.error(REQUEST_FAILED, { ...line, error: (request.error as Error | undefined) ?? undefined });
  else if (WARNED.has(status)) logger.warn(REQUEST_ANSWERED, line);
  else logger.info(REQUEST_ANSWERED, line);
}
