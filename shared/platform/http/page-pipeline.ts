/**
 * The HTML sibling of the JSON `api()` bundle, for pages people open in a browser. It reuses the
 * same pieces (header and event normalizers, the call context and log line of `respond`, the origin
 * guard, the body cap and JSON parser for POSTs, the error classification of `errorOutcome`) but
 * answers with HTML: every response carries the security headers, and every thrown error becomes
 * a readable page.
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomBytes } from 'node:crypto';
import { NotFound } from '../errors.js';
import { withinDeadline } from '../time.js';
import type { CallContext } from '../call.js';
import { originPath, type RouteDefinition } from '../route.js';
import { type ApiContext, bodyCap, queryCap } from './pipeline.js';
import { errorOutcome, respond } from './answers.js';
import { htmlDocument, noticeMain, type DocumentParts } from './html.js';
import { originVerify, secretsLoaded } from '../secrets.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** What a page function receives. */
export interface PageInput<S> {
  /** The operation this request came in on (API Gateway's `routeKey`, as the local front sets it too). */
  readonly route: RouteDefinition;
  readonly params: Record<string, string | undefined>;
  readonly query: Record<string, string | undefined>;
  readonly cookies: Record<string, string>;
  /** The parsed JSON body of a POST (validate it with `parseWith`); undefined for a GET. */
  readonly body: unknown;
  readonly call: CallContext;
  /** The page function's part of the services (`shared/play/services.ts`). */
  readonly services: S;
}

/** A page to render: its status, document parts (the nonce is the bundle's) and framing policy. */
export interface PageView extends Omit<DocumentParts, 'nonce'> {
  readonly status: number;
  /** Origins that may frame the page. Absent or empty: nobody (`frame-ancestors 'none'`, `X-Frame-Options: DENY`). */
  readonly frameAncestors?: readonly string[];
  /** Sources the page itself may frame (the game's content); absent: none. */
  readonly frameSrc?: readonly string[];
}

/**
 * Wrap a page function into a Lambda handler for API Gateway HTTP API (payload v2) events.
 * @param operations the operations the function serves (their declarations: `shared/play/routes.ts`)
 */
export function page<S, const D extends RouteDefinition>(
  operations: readonly D[],
  serve: (input: PageInput<S>) => Promise<Result>,
  services: () => S,
) {
  // A HEAD comes in on the page's own HEAD route (API Gateway) and is served as its GET.
  const routeOf = (event: Event) => operations.find((r) => `${r.method} ${originPath(r)}` === event.routeKey.replace(/^HEAD /, 'GET '));
  const handler = middy<Event, Result, Error, ApiContext>()
    .use(headWithoutBody())
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(respond((event) => routeOf(event)?.operation ?? event.routeKey, pageErrorResponse))
    .use(originVerify())
    .use(secretsLoaded())
    .use(queryCap())
    .use(unlessGet(bodyCap()))
    .use(unlessGet(httpJsonBodyParser()))
    // Every DynamoDB call of the request ends before its deadline (`shared/platform/time.ts`).
    .handler(
      withinDeadline(async (event: Event, context: ApiContext) => {
        const route = routeOf(event);
        if (!route) throw new NotFound('There is no page at this address.');
        return serve({
          route,
          params: event.pathParameters ?? {},
          query: event.queryStringParameters ?? {},
          cookies: cookiesOf(event),
          body: event.body,
          call: context.call!,
          services: services(),
        });
      }),
    );
  return Object.assign(handler, { operations });
}

/** An HTML response with the security headers and a fresh CSP nonce. */
export function htmlResponse(view: PageView, cookies: readonly string[] = []): Result {
  const nonce = randomBytes(16).toString('base64');
  const { status, frameAncestors, frameSrc, ...parts } = view;
  const ancestors = cspSources(frameAncestors ?? []);
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    ...(frameSrc?.length ? [`frame-src ${frameSrc.join(' ')}`] : []),
    `frame-ancestors ${ancestors}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    statusCode: status,
    headers: {
      ...BASE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      // Older browsers know only X-Frame-Options; it has no "these origins" form, so it is sent
      // only where nobody may frame the page.
      ...(ancestors === "'none'" ? { 'x-frame-options': 'DENY' } : {}),
    },
    ...(cookies.length ? { cookies: [...cookies] } : {}),
    body: htmlDocument({ ...parts, nonce }),
  };
}

/**
 * Headers of every page answer. `no-referrer`: play URLs carry tokens, which must not leak to the
 * game's or anyone's server through `Referer`. `no-store`: a token page must never be replayed
 * from a cache.
 */
const BASE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** A CSP source: `*`, or an http(s) origin whose host may start with `*.`. Nothing else passes. */
const CSP_ORIGIN = /^(\*|https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?)$/i;

/** A source list for CSP; entries that are not plain origins are dropped, so none can inject a directive. */
function cspSources(origins: readonly string[]): string {
  const valid = origins.filter((o) => CSP_ORIGIN.test(o));
  return valid.length ? valid.join(' ') : "'none'";
}

/** A thrown error as a page: its status, and words for what happened and what to do. */
function pageErrorResponse(error: unknown): Result {
  const outcome = errorOutcome(error);
  const notice = genericNotice(outcome.status, outcome.message);
  const response = htmlResponse({ status: outcome.status, title: notice.title, main: noticeMain(notice), chrome: true, layout: 'notice' });
  return { ...response, headers: { ...response.headers, ...outcome.headers } };
}

function genericNotice(code: number, message: string): { title: string; what: string; todo: string; code: number } {
  const newLink = 'Check the address, or ask the site that sent you for a new link.';
  if (code === 404) return { code, title: 'Page not found', what: message, todo: newLink };
  if (code === 503)
    return { code, title: 'The service is busy', what: 'Too many requests arrived at once.', todo: 'Wait a moment, then reload.' };
  if (code < 500) return { code, title: 'This request cannot be served', what: message, todo: newLink };
  return {
    code,
    title: 'Something went wrong',
    what: 'An unexpected error stopped this page from loading. It is not something you did.',
    todo: 'Reload the page in a moment. If it keeps happening, ask the site that sent you for a new link.',
  };
}

/** Cookies of a payload v2 event (`cookies: ["name=value", ...]`); the first of a repeated name wins. */
function cookiesOf(event: Event): Record<string, string> {
  // No prototype: a cookie named `constructor` or `__proto__` is a cookie like any other.
  const jar = Object.create(null) as Record<string, string>;
  for (const cookie of event.cookies ?? []) {
    const at = cookie.indexOf('=');
    if (at > 0) jar[cookie.slice(0, at).trim()] ??= cookie.slice(at + 1).trim();
  }
  return jar;
}

/** A HEAD is answered as its GET without the body (first in the chain, so last to see the answer). */
function headWithoutBody(): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const strip = (request: middy.Request<Event, Result, Error, ApiContext>) => {
    if (request.event.requestContext.http.method === 'HEAD' && request.response) request.response = { ...request.response, body: '' };
  };
  return { after: strip, onError: strip };
}

/** Body handling applies to requests that carry one; GETs (and HEADs) of a page have none. */
function unlessGet(
  middleware: middy.MiddlewareObj<Event, Result, Error, ApiContext>,
): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: (request) => {
      const { method } = request.event.requestContext.http;
      if (method !== 'GET' && method !== 'HEAD') return middleware.before?.(request);
    },
  };
}
