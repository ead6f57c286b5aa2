/**
 * THE middy bundle every function uses. A function declares its operation (the credential it
 * takes comes from the routes table) and its zod schemas, and supplies one async function from
 * validated input to data. The bundle normalizes headers, caps and parses the JSON body, extracts
 * the credential, validates, wraps `{success: true, data}`, adds rate-limit headers, maps every
 * thrown error to its status and envelope, and writes one log line per request.
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { InvalidInput, PayloadTooLarge } from '../domain/errors.js';
import { keyCredential, type KeyCredential } from '../domain/key-calls.js';
import type { CallContext } from '../domain/model.js';
import { routes, type OperationName } from '../routes.js';
import { services, type Services } from '../services.js';
import { jsonResponse, rateLimitHeaders } from './envelope.js';
import { errorResponse } from './errors.js';
import { logger } from './logger.js';
import { parseWith } from './validation.js';

/** Largest request body accepted (decisions: over 64 KiB is refused). */
export const MAX_BODY_BYTES = 64 * 1024;

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type AuthOf<Op extends OperationName> = Extract<(typeof routes)[number], { operation: Op }>['auth'];
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The Lambda context with this request's call context attached by the bundle. */
export interface ApiContext extends Context {
  call?: CallContext;
}

/** What an operation receives. */
export type OperationInput<Op extends OperationName, B, Q> = {
  readonly body: B;
  readonly query: Q;
  readonly call: CallContext;
  readonly services: Services;
  readonly event: Event;
} & (AuthOf<Op> extends 'apiKey' ? { readonly credential: KeyCredential } : unknown);

/** An operation's declaration. */
export interface OperationSpec<Op extends OperationName, B, Q> {
  readonly operation: Op;
  /** Schema of the JSON body; when set, a body is required and parsed. */
  readonly body?: B;
  /** Schema of the query string parameters. */
  readonly query?: Q;
}

/** Wrap an operation into a Lambda handler for API Gateway HTTP API (payload v2) events. */
export function api<Op extends OperationName, B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  spec: OperationSpec<Op, B, Q>,
  operation: (input: OperationInput<Op, Out<B>, Out<Q>>) => Promise<unknown>,
) {
  const route = routes.find((r) => r.operation === spec.operation)!;
  const chain = middy<Event, Result, Error, ApiContext>()
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(respond(spec.operation));
  if (spec.body) chain.use(bodyCap()).use(httpJsonBodyParser());

  return chain.handler(async (event, context) => {
    const call = context.call!;
    // The credential is checked before the input: a caller without one learns nothing else.
    const credential = route.auth === 'apiKey' ? keyCredential(event.headers['x-api-key']) : undefined;
    const input = {
      body: spec.body ? parseWith(spec.body, event.body, 'body') : undefined,
      query: spec.query ? parseWith(spec.query, event.queryStringParameters ?? {}, 'query') : undefined,
      call,
      services: services(),
      event,
      credential,
    };
    const data = await operation(input as OperationInput<Op, Out<B>, Out<Q>>);
    return jsonResponse(200, { data });
  });
}

/** Refuse empty and oversized bodies before parsing them. */
function bodyCap(): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: ({ event }) => {
      if (!event.body) throw new InvalidInput('Request body is required');
      const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body);
      if (bytes > MAX_BODY_BYTES) throw new PayloadTooLarge(`Request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  };
}

/** Call context, envelope headers, error mapping and the request's log line. */
function respond(operation: OperationName): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const started = new WeakMap<object, number>();
  const finish = (request: middy.Request<Event, Result, Error, ApiContext>, response: Result): Result => {
    const call = request.context.call;
    const headers = {
      ...(response.headers as Record<string, string>),
      ...rateLimitHeaders(call?.rateLimit),
      'x-request-id': call?.requestId ?? '',
    };
    const status = response.statusCode ?? 200;
    const fields = {
      operation,
      status,
      request_id: call?.requestId,
      duration_ms: Date.now() - (started.get(request) ?? Date.now()),
      key_prefix: keyPrefixOf(request.event),
    };
    if (status >= 500) logger.error('request failed', { ...fields, error: request.error ?? undefined });
    else logger.info('request', fields);
    return { ...response, headers };
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      const { requestContext } = request.event;
      request.context.call = {
        requestId: requestContext.requestId,
        sourceIp: requestContext.http.sourceIp,
        userAgent: requestContext.http.userAgent ?? '',
      };
    },
    after: (request) => {
      request.response = finish(request, request.response!);
    },
    onError: (request) => {
      request.response = finish(request, errorResponse(request.error));
    },
  };
}

/** The presented key's 8-character prefix, the only part of it that may be logged. */
function keyPrefixOf(event: Event): string | undefined {
  const key = event.headers?.['x-api-key'];
  return key ? key.slice(0, 8) : undefined;
}
