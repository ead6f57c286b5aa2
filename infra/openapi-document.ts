/**
 * The OpenAPI 3.1 document of the service, generated from THE routes table: each operation's
 * declaration and its zod schemas (the very ones that validate requests), never written by hand.
 * `npm run openapi` writes it to `docs/openapi.json`, which a test keeps current and
 * `GET /api/openapi.json` serves (`functions/openapi.ts`).
 *
 * OpenAPI allows one operation per path and method, and no query in a path, but the interface
 * multiplexes several operations on `/api/org-api-keys` with `?action=`. Each of those is also
 * served at a path of its own (`/api/org-api-keys/create-session`: `publicForms()`), which the
 * document gives, so that generated clients call it as it is; the `?action=` form, the spec's
 * contract, is described in the operation's description (docs/decisions.md#interface-description).
 */
import * as z from 'zod/mini';
import {
  createDocument,
  type ZodOpenApiObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import { API_PATH, API_VERSION, originPath, type RouteDefinition } from '../shared/platform/route.js';
import { routes } from '../shared/routes.js';
import { errorTable } from '../shared/platform/errors.js';
import { envelope, errorEnvelope, withMeta } from '../shared/platform/schemas.js';
import { registerSessionDocs } from '../shared/sessions/index.js';

// The create-session fields' descriptions, for this document only (not every function's bundle).
registerSessionDocs();

const ERROR_TEXTS: Record<number, string> = {
  414: 'Query string over 2,048 bytes',
  400: 'Missing or invalid parameters (the message names the field)',
  401: 'Missing, invalid, revoked or expired credential',
  403: 'No access: tier below Business, outside the key’s scope, not an owner/admin of the organization, or (MCP) a browser Origin outside the allow-list',
  404: 'Not found',
  409: 'Conflict: the request is still being processed (Retry-After), the record was changed meanwhile, or a rotated or revoked key cannot take this change',
  410: 'Session is invalid, already consumed, or expired',
  413: 'Request body over 64 KiB',
  422: 'Idempotency-Key already used with a different request body',
  429: 'Rate limit exceeded (Retry-After tells when to retry)',
  503: 'Service busy or its database unreachable (Retry-After tells when to retry)',
};

/**
 * What a status means on an operation without credential: its 403 is about the link or the play
 * session, not a caller's rights; its 429 is only the edge firewall's, which has neither
 * `Retry-After` nor `request_id` (`infra/waf.ts`).
 */
const ANONYMOUS_TEXTS: Record<number, string> = {
  403:
    'Refused: the game or stream requires a session token and the link has none, or its token is for another game or stream; ' +
    'or the token is bound to a player (`player_mismatch`): consume-session named another `player_uuid` or none, a play page names none',
  429: 'Too many anonymous requests from this address (the edge firewall, where the deployment has one: docs/deploy.md#waf); retry in a few minutes',
};

const CODES = [...new Set(Object.values(errorTable).map(([, code]) => code))] as [string, ...string[]];
const ErrorResponse = withMeta(errorEnvelope(CODES), { id: 'ErrorResponse' });

/** The body of an operation without a response schema: an HTML page (its refusals too: `shared/platform/http/page-pipeline.ts`). */
const HTML: Pick<ZodOpenApiResponseObject, 'content'> = {
  content: { 'text/html': { schema: withMeta(z.string(), { description: 'An HTML page.' }) } },
};

/** The challenge of every 401 (`shared/platform/http/pipeline.ts`, `challenge`), by the credential the route takes. */
const Challenge = {
  apiKey: z.object({
    'www-authenticate': withMeta(z.string(), {
      description: 'The credential to send: `ApiKey realm="game-session-token-service", header="x-api-key"`',
    }),
  }),
  bearer: z.object({
    'www-authenticate': withMeta(z.string(), {
      description:
        'The credential to send: `Bearer realm="game-session-token-service"` (with `error="invalid_token"` when one was presented)',
    }),
  }),
};

const RateLimitHeaders = z.object({
  'ratelimit-policy': withMeta(z.string(), { description: 'Both windows of the key: `"minute";q=60;w=60, "day";q=10000;w=86400`' }),
  ratelimit: withMeta(z.string(), { description: 'The window closest to exhaustion: `"minute";r=59;t=42`' }),
});

/** The document's parts that do not depend on the routes: its description, server and credentials. */
const DOCUMENT_HEAD: Omit<ZodOpenApiObject, 'openapi' | 'paths'> = {
  info: {
    title: 'Game Session Token Service',
    version: API_VERSION,
    description:
      'Single-use session tokens for games and streams, minted by partner servers with an API key, ' +
      'validated and consumed by play pages; API keys managed by organization admins with a bearer JWT. ' +
      'Every JSON answer is `{success: true, data}` or `{success: false, error, code, param, request_id}` ' +
      '(`code` stable: docs/errors.md). Operations selected with `?action=` on `/api/org-api-keys` are listed at their own ' +
      'paths (`/api/org-api-keys/create-session`), which serve them the same; the `?action=` form stays the contract.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [
    {
      url: '{base_url}',
      description: 'The deployment’s public base URL (its CloudFront address or custom domain); `npm start` serves http://localhost:3000',
      variables: { base_url: { default: 'http://localhost:3000', description: 'Scheme, host and port, no trailing slash' } },
    },
  ],
  components: {
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description: 'An API key: `dpk_` and 40 hex characters (also accepted as `Authorization: Bearer dpk_…`).',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A JWT of the configured OpenID Connect provider; the subject must hold a role in the organization that the operation allows (docs/decisions.md#organization-roles).',
      },
    },
  },
};

/** Build the document from the routes table. */
export function buildDocument(table: readonly RouteDefinition[] = routes): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of table) {
    const key = originPath(route) !== route.path && route.action ? originPath(route) : route.path;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    paths[key] = { ...paths[key], [method]: operation(route) };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      ...DOCUMENT_HEAD,
      paths,
    },
    {
      override: openEndedOutputs,
    },
  );
}

/**
 * Answers may gain fields within 1.x (additive changes): an output schema does not promise there
 * are no others. Any value (a record of unknown) is said as `true`, which generators and strict
 * validators read plainly.
 */
const openEndedOutputs: NonNullable<NonNullable<Parameters<typeof createDocument>[1]>['override']> = ({ jsonSchema, io }) => {
  if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  const extra = jsonSchema.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(extra).length === 0) jsonSchema.additionalProperties = true;
};

/** The document's entry of one operation; one without a response schema (an HTML page) by its summary alone. */
function operation(route: RouteDefinition): ZodOpenApiOperationObject {
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const query = route.query;
  return {
    operationId: route.operation,
    summary: route.summary,
    ...(route.action ? { description: actionForm(route) } : {}),
    security: route.auth === 'none' ? [] : [{ [route.auth]: [] }],
    ...(query || pathParams.length || route.headers
      ? {
          requestParams: {
            ...(query ? { query } : {}),
            ...(route.headers ? { header: route.headers } : {}),
            ...(pathParams.length ? { path: z.object(Object.fromEntries(pathParams.map((name) => [name, z.string()]))) } : {}),
          },
        }
      : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses: { '200': success(route), ...errorResponses(route) },
  };
}

/** The spec's form of an operation listed at its own path: the same operation, on the shared path with `?action=`. */
function actionForm(route: RouteDefinition): string {
  const query = route.method === 'GET' ? `?action=${route.action}&…` : `?action=${route.action}`;
  return (
    `Also served, identically, as \`${route.method} ${API_PATH}${query}\` (the interface's contract; this path is the same ` +
    `operation without the query parameter, for generated clients).`
  );
}

/** The success answer: its headers (rate limits on key routes) and its body, enveloped unless the operation answers otherwise. */
function success(route: RouteDefinition): ZodOpenApiResponseObject {
  if (!route.response) return { description: route.summary, ...HTML };
  const headers = route.auth === 'apiKey' ? z.extend(RateLimitHeaders, route.responseHeaders?._zod.def.shape ?? {}) : route.responseHeaders;
  return {
    description: route.summary,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: route.reply ? route.response : envelope(route.response) } },
  };
}

/**
 * The refusals an operation answers: those its input, credential, path and data access imply, and
 * its own (`errors`). Any DynamoDB call may be throttled past its retries (503 `overloaded`), so an
 * operation that declares data access documents 503; anonymous requests may meet the edge
 * firewall's per-address limit (429, where deployed: docs/deploy.md#waf).
 */
function errorResponses(route: RouteDefinition): Record<string, ZodOpenApiResponseObject> {
  const statuses = new Set<number>([
    ...(route.body || route.query || route.action ? [400] : []),
    ...(route.body ? [413] : []),
    // Every function refuses a query string over its cap (`shared/platform/http/pipeline.ts`).
    414,
    // A path parameter may name nothing (the pages: an unknown game or stream).
    ...(route.path.includes('{') ? [404] : []),
    ...(route.auth === 'none' ? [] : [401, 403]),
    // A key's rate windows (apiKey); the edge firewall's per-address limit (anonymous). Bearer calls carry a credential: neither.
    ...(route.auth === 'bearer' ? [] : [429]),
    ...(Object.keys(route.data).length ? [503] : []),
    ...(route.errors ?? []),
  ]);
  const auth = route.auth;
  return Object.fromEntries(
    [...statuses]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        {
          description: (auth === 'none' ? ANONYMOUS_TEXTS[status] : undefined) ?? ERROR_TEXTS[status] ?? 'Error',
          ...(status === 401 && auth !== 'none' ? { headers: Challenge[auth] } : {}),
          // A page's refusals are pages (`/play/session`'s too), but for the edge firewall's 429, which is the JSON envelope everywhere.
          ...((route.response && route.refusals !== 'html') || status === 429
            ? { content: { 'application/json': { schema: ErrorResponse } } }
            : HTML),
        },
      ]),
  );
}
