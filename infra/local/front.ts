/**
 * The local front: a small HTTP server standing in for CloudFront + API Gateway. It applies THE
 * routes table (including the `?action=` dispatch the edge rewrite does in AWS), builds an API
 * Gateway HTTP API (payload v2) event and calls the very same handler export a Lambda would.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { DomainError, Forbidden, PayloadTooLarge } from '../../shared/platform/errors.js';
import { ANSWER_HEADERS, errorResponse, withRequestId } from '../../shared/platform/http/answers.js';
import { allowedMethods, routingResponse, canonicalPagePath, matchRoute } from '../../shared/routes.js';
import type { RouteDefinition } from '../../shared/platform/route.js';
import { routeKey } from '../capacity.js';
import { apiGatewayEvent, lambdaContext } from './api-event.js';

/** A Lambda handler for HTTP API events. */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Largest body the front reads at all; the functions themselves refuse anything over 64 KiB. */
const FRONT_BODY_LIMIT = 1024 * 1024;

export interface FrontOptions {
  /** Load a function's handler (the local runner imports `functions/<function>.ts`). */
  readonly loadHandler: (operation: string) => Promise<HttpHandler>;
  /**
   * Servers of requests outside the routes table (the console, demo assets, the development webhook
   * receiver), asked in order with the body read; each returns true when it served.
   */
  readonly extra?: readonly ((req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) => boolean | Promise<boolean>)[];
  /**
   * Applications mounted on the front that read their request bodies themselves (the local
   * identity provider under `/oidc`): offered the request before the front reads its body, after
   * the loopback check; return true when served.
   */
  readonly mount?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
  /**
   * The front listens on the loopback interface: refuse (403) a request whose `Host`, or `Origin`
   * when it has one, names anything but this machine. A page of another site that rebinds its DNS
   * name to 127.0.0.1 reaches the port, but with its own name in both (DNS rebinding).
   */
  readonly loopbackOnly?: boolean;
}

/** Names of this machine a request to a loopback listener may carry. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a host (`Host` value, or an origin's host) names this machine (`*.localhost` too, RFC 6761). */
function isLoopbackHost(host: string | undefined, asOrigin = false): boolean {
  if (!host) return false;
  try {
    const { hostname } = new URL(asOrigin ? host : `http://${host}`);
    return LOOPBACK_HOSTS.has(hostname) || hostname.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** Create (not start) the local front. */
export function createFront(options: FrontOptions): Server {
  const server = createServer((req, res) => {
    // A refusal is a named error, answered from THE error table like a function's; anything else failed.
    serve(options, req, res).catch((error: unknown) => {
      if (!(error instanceof DomainError)) console.error('local front failed', error);
      if (res.headersSent) return;
      // A body left unread (refused at the limit, or before it was read) is never read: the
      // connection closes after the answer instead of being drained for the next request.
      if (!req.complete) res.setHeader('connection', 'close');
      send(res, withRequestId(errorResponse(error), randomUUID()));
    });
  });
  server.keepAliveTimeout = FRONT_KEEP_ALIVE_MS;
  return server;
}

/**
 * How long an idle keep-alive connection stays open. fetch (undici) keeps one for the server's
 * `Keep-Alive: timeout` hint minus 1 s, so the CLIENT closes first and never reuses a connection the
 * server is dropping. With Node's 5 s default, a fetch after 5 s idle could take such a connection
 * and fail with ECONNRESET (seen in CI: a test blocked the event loop 6 s between two requests).
 * 65 s is also what an AWS load balancer's 60 s idle timeout asks of the servers behind it.
 */
const FRONT_KEEP_ALIVE_MS = 65_000;

async function serve(options: FrontOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (options.loopbackOnly) {
    const origin = req.headers.origin;
    if (!isLoopbackHost(req.headers.host) || (origin !== undefined && !isLoopbackHost(origin, true))) {
      throw new Forbidden('This local server answers only requests whose Host and Origin name this machine (localhost)');
    }
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (options.mount && (await options.mount(req, res, url))) return;
  const body = await readBody(req);
  if (body === 'too-large') throw new PayloadTooLarge(`Request body exceeds ${FRONT_BODY_LIMIT} bytes`);
  for (const serveExtra of options.extra ?? []) if (await serveExtra(req, res, url, body)) return;

  const actions = url.searchParams.getAll('action');
  const action = actions.length ? actions.join(',') : undefined;
  const match = matchRoute(req.method ?? 'GET', url.pathname, action);
  if (match.kind !== 'route') {
    return send(res, withRequestId(routingResponse(match.kind, allowedMethods(url.pathname, action)), randomUUID()));
  }
  const canonical = canonicalPagePath(req.method ?? 'GET', url.pathname, match.route);
  if (canonical !== undefined) return send(res, { statusCode: 301, headers: { location: canonical + url.search }, body: '' });

  const handler = await options.loadHandler(match.route.function);
  const event = toEvent(req, url, body, match.route, match.params);
  const result = await handler(event, lambdaContext(match.route.function));
  send(res, result);
}

/**
 * The request's body, or `'too-large'` as soon as it is known to pass {@link FRONT_BODY_LIMIT}: by
 * its `Content-Length`, or once the bytes read pass the limit. Then nothing more is read (the
 * request is paused and the answer closes the connection), however much the client still sends.
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  if (Number(req.headers['content-length']) > FRONT_BODY_LIMIT) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= FRONT_BODY_LIMIT) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve('too-large');
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The API Gateway HTTP API v2 event for a request the routes table routed to `route`. */
function toEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  route: RouteDefinition,
  params: Record<string, string>,
): APIGatewayProxyEventV2 {
  return apiGatewayEvent({
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.search.slice(1),
    headers: req.headers,
    body,
    routeKey: routeKey(route),
    pathParameters: params,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
  });
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  // The front's own answers (a redirect, a routing refusal) carry what every function's does.
  const headers: Record<string, string | string[]> = { ...ANSWER_HEADERS };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? ''));
}
