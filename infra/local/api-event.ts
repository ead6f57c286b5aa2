/**
 * The Lambda invocation API Gateway makes for an HTTP request: the HTTP API (payload v2) event and
 * the Lambda context. The local front builds its invocations with it, and so do the tests that call
 * a handler (or a bundle, `test/support/bundled-child.ts`) directly, so that every handler sees
 * events of one shape. No imports but Node's: the bundled tests build it for their child process.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** An HTTP request as API Gateway receives it, routed. */
interface ApiRequest {
  readonly method: string;
  /** The path the client sent (`rawPath`). */
  readonly path: string;
  /** The query string, without `?`. */
  readonly query?: string;
  /** Headers by lower-case name (a repeated one as a list); `cookie` becomes the event's `cookies`. */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: Buffer | string;
  /** The route that matched: `POST /api/org-api-keys/create-session`. */
  readonly routeKey: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** The client's address; 127.0.0.1 by default. */
  readonly sourceIp?: string;
  /** `HTTP/1.1` by default. */
  readonly protocol?: string;
  /** A random UUID by default. */
  readonly requestId?: string;
  /** When API Gateway received it (epoch ms); now by default. */
  readonly now?: number;
}

/** The API Gateway HTTP API v2 event for a request, as API Gateway would build it. */
export function apiGatewayEvent(request: ApiRequest): APIGatewayProxyEventV2 {
  const { headers, cookies } = splitHeaders(request.headers ?? {});
  const query: Record<string, string> = {};
  const search = new URLSearchParams(request.query ?? '');
  for (const key of new Set(search.keys())) query[key] = search.getAll(key).join(',');
  const now = request.now ?? Date.now();
  const domainName = headers.host ?? 'localhost';
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : (request.body ?? Buffer.alloc(0));
  const text = body.toString('utf8');
  // Bodies that are not valid UTF-8 travel base64-encoded, as API Gateway sends them.
  const binary = body.length > 0 && Buffer.from(text, 'utf8').length !== body.length;
  const params = request.pathParameters ?? {};
  return {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath: request.path,
    rawQueryString: request.query ?? '',
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(params).length ? { ...params } : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split(/[.:]/)[0]!,
      http: {
        method: request.method,
        path: request.path,
        protocol: request.protocol ?? 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: request.requestId ?? randomUUID(),
      routeKey: request.routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.length ? (binary ? body.toString('base64') : text) : undefined,
    isBase64Encoded: binary,
  };
}

/** Headers as the event carries them: one value each (a repeated one joined by commas), cookies apart. */
function splitHeaders(raw: NonNullable<ApiRequest['headers']>): { headers: Record<string, string>; cookies: string[] | undefined } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = typeof value === 'string' ? value : value.join(',');
  }
  const cookie = raw.cookie;
  return { headers, cookies: typeof cookie === 'string' && cookie ? cookie.split(/;\s*/) : undefined };
}

/** A Lambda context for one invocation of `functionName`, with `timeoutMs` left from now. */
export function lambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
