import type { TableName } from './tables.js';

/**
 * THE routes table: every operation the service exposes, with the public method/path/action a
 * client uses, the Lambda function file that serves it and the credential it takes. The local
 * front, the CDK stack (one function and one API route per row), the CloudFront rewrite and the
 * OpenAPI generator all read this list; adding an operation is adding a row here.
 */
export type AuthKind = 'none' | 'apiKey' | 'bearer';
/**
 * Which budget of the capacity plan (`infra/capacity.ts`, docs/deploy.md "Capacity") a route's
 * traffic draws on at the edge: `key` the API-key calls partners are metered for, `token` the
 * anonymous token reads and consumptions, `play` the browser's pages and `/play/session`, `admin`
 * the org admins' key management, `meta` documents about the service itself.
 */
export type CapacityClass = 'key' | 'token' | 'play' | 'admin' | 'meta';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** DynamoDB actions a function performs, per logical table (feeds least-privilege IAM in CDK). */
export type DataAccess = Partial<Record<TableName, readonly DynamoAction[]>>;
export type DynamoAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'BatchGetItem';

/** One operation of the public interface. */
export interface RouteDefinition {
  /** Operation name (unique); the OpenAPI operationId and the `?action=` target. */
  readonly operation: string;
  /** The Lambda serving it: the file `functions/<function>.ts`. Several routes may share one. */
  readonly function: string;
  /** Every DynamoDB action the function may perform; the union over its routes is its IAM policy. */
  readonly data: DataAccess;
  readonly method: HttpMethod;
  /** Public path (as clients call it). `{name}` marks a path parameter. */
  readonly path: string;
  /** Value of the `?action=` query parameter that selects this operation, when the path is shared. */
  readonly action?: string;
  readonly auth: AuthKind;
  /** The edge throttle budget it draws on (one per route, so no route goes unthrottled). */
  readonly capacity: CapacityClass;
  /** One line for docs and the OpenAPI summary. */
  readonly summary: string;
}

/** The shared path that multiplexes operations with `?action=`. */
export const API_PATH = '/api/org-api-keys';

/** What a play page reads: the game or stream and the org (catalog), and the token. */
const PLAY_PAGE_DATA = { catalog: ['GetItem'], tokens: ['GetItem'] } as const satisfies DataAccess;

export const routes = [
  {
    operation: 'create-session',
    function: 'create-session',
    data: {
      keys: ['GetItem', 'UpdateItem'],
      catalog: ['GetItem'],
      // Counting: one conditional write; its refusal is read back only on a backend without
      // `ReturnValuesOnConditionCheckFailure` (the embedded dynalite).
      counters: ['UpdateItem', 'GetItem'],
      tokens: ['PutItem', 'DeleteItem'],
      audit: ['PutItem'],
      // Only with an `Idempotency-Key`: claim (conditional put), read a stored answer, store one, release.
      idempotency: ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
    },
    method: 'POST',
    path: API_PATH,
    action: 'create-session',
    auth: 'apiKey',
    capacity: 'key',
    summary: 'Mint a single-use session token for one game or stream',
  },
  {
    operation: 'validate-session',
    function: 'validate-session',
    data: { tokens: ['GetItem'] },
    method: 'GET',
    path: API_PATH,
    action: 'validate-session',
    auth: 'none',
    capacity: 'token',
    summary: 'Read a session token without consuming it',
  },
  {
    operation: 'consume-session',
    function: 'consume-session',
    data: { tokens: ['UpdateItem'], counters: ['UpdateItem'] },
    method: 'POST',
    path: API_PATH,
    action: 'consume-session',
    auth: 'none',
    capacity: 'token',
    summary: 'Consume a session token, atomically and once',
  },
  {
    operation: 'revoke-session',
    function: 'revoke-session',
    data: { keys: ['GetItem', 'UpdateItem'], counters: ['UpdateItem', 'GetItem'], tokens: ['UpdateItem', 'GetItem'], audit: ['PutItem'] },
    method: 'POST',
    path: API_PATH,
    action: 'revoke-session',
    auth: 'apiKey',
    capacity: 'key',
    summary: 'Revoke an active session token of the key’s organization',
  },
  // The MCP server (one function for every JSON-RPC method). Each request authenticates and meters
  // like create-session; its tools mint and revoke tokens (and undo them when the call is refused),
  // read and change the org's games and streams, and read the session report (the mints' audit records, then tokens).
  {
    operation: 'mcp',
    function: 'mcp',
    data: {
      keys: ['GetItem', 'UpdateItem'],
      counters: ['UpdateItem', 'GetItem'],
      audit: ['PutItem', 'Query'],
      catalog: ['GetItem', 'Query', 'UpdateItem'],
      tokens: ['PutItem', 'DeleteItem', 'UpdateItem', 'GetItem', 'BatchGetItem'],
      // create_session with an `Idempotency-Key`, as REST create-session.
      idempotency: ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
    },
    method: 'POST',
    path: '/api/mcp',
    auth: 'apiKey',
    capacity: 'key',
    summary: 'Remote MCP server for agents (Streamable HTTP, stateless, JSON responses); tools by the key’s MCP scopes',
  },
  // Key management (org admins, bearer). Each reads the membership and the org (catalog) alongside
  // its first read, then writes its change together with its audit record.
  {
    operation: 'list-keys',
    function: 'keys-list',
    data: { catalog: ['GetItem'], keys: ['Query'], audit: ['PutItem'] },
    method: 'GET',
    path: API_PATH,
    auth: 'bearer',
    capacity: 'admin',
    summary: 'List the API keys of an organization (never the raw key or its hash)',
  },
  {
    operation: 'create-key',
    function: 'keys-create',
    // keys UpdateItem: the new key takes a tier changed while it was being stored (shared/domain/org-tiers.ts).
    data: { catalog: ['GetItem'], counters: ['UpdateItem'], keys: ['PutItem', 'UpdateItem'], audit: ['PutItem'] },
    method: 'POST',
    path: API_PATH,
    auth: 'bearer',
    capacity: 'admin',
    summary: 'Create an API key; the raw key is returned once',
  },
  {
    operation: 'update-key',
    function: 'keys-update',
    data: { catalog: ['GetItem'], keys: ['Query', 'UpdateItem'], audit: ['PutItem'] },
    method: 'PATCH',
    path: API_PATH,
    auth: 'bearer',
    capacity: 'admin',
    summary: 'Update an API key: revoke or reactivate (is_active), limits, scopes, expiry, labels',
  },
  {
    operation: 'delete-key',
    function: 'keys-delete',
    data: { catalog: ['GetItem'], keys: ['Query', 'DeleteItem'], audit: ['PutItem'] },
    method: 'DELETE',
    path: API_PATH,
    auth: 'bearer',
    capacity: 'admin',
    summary: 'Delete an API key permanently',
  },
  // Rotation reads the key, the membership and a new key id together, then writes the new key, the
  // old key's retirement and the audit record together; a failed write is taken back (DeleteItem).
  {
    operation: 'rotate-key',
    function: 'keys-rotate',
    data: { catalog: ['GetItem'], counters: ['UpdateItem'], keys: ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'], audit: ['PutItem'] },
    method: 'POST',
    path: API_PATH,
    action: 'rotate-key',
    auth: 'bearer',
    capacity: 'admin',
    summary: 'Rotate an API key: a new key with the same settings; the old one works for a grace period',
  },
  {
    operation: 'audit-log',
    function: 'audit-log',
    data: { catalog: ['GetItem'], audit: ['Query'] },
    method: 'GET',
    path: API_PATH,
    action: 'audit-log',
    auth: 'bearer',
    capacity: 'admin',
    summary: 'Read the organization’s audit log (key usage and key management), newest first',
  },
  {
    operation: 'openapi',
    function: 'openapi',
    data: {},
    method: 'GET',
    path: '/api/openapi.json',
    auth: 'none',
    capacity: 'meta',
    summary: 'This interface description (OpenAPI 3.1)',
  },
  // Play pages (HTML, one function): read-only on the catalog (the game or stream, and for the embed
  // shape the org's allowed origins) and on the token; the page's own script consumes the token.
  {
    operation: 'play-game-page',
    function: 'play-page',
    data: PLAY_PAGE_DATA,
    method: 'GET',
    path: '/play/game/{game_id}',
    auth: 'none',
    capacity: 'play',
    summary: 'Canonical play page of a game (`session_token` when required)',
  },
  {
    operation: 'play-stream-page',
    function: 'play-page',
    data: PLAY_PAGE_DATA,
    method: 'GET',
    path: '/play/stream/{stream_id}',
    auth: 'none',
    capacity: 'play',
    summary: 'Canonical play page of a stream (`session_token` when required)',
  },
  {
    operation: 'game-page',
    function: 'play-page',
    data: PLAY_PAGE_DATA,
    method: 'GET',
    path: '/game/{game_id}',
    auth: 'none',
    capacity: 'play',
    summary: 'Game page of the service (`session_token` when required)',
  },
  {
    operation: 'embed-page',
    function: 'play-page',
    data: PLAY_PAGE_DATA,
    method: 'GET',
    path: '/embed/{game_id}',
    auth: 'none',
    capacity: 'play',
    summary: 'Game page without the service’s interface, for iframes (`session_token` when required)',
  },
  {
    operation: 'stream-page',
    function: 'play-page',
    data: PLAY_PAGE_DATA,
    method: 'GET',
    path: '/stream/{org_slug}/{stream_id}',
    auth: 'none',
    capacity: 'play',
    summary: 'Stream page of an organization (`session_token` when required)',
  },
  {
    operation: 'play-session',
    function: 'play-page',
    // One conditional write counts the attempt and returns the token; a refusal reads it back where
    // the backend does not return it (dynalite).
    data: { tokens: ['UpdateItem', 'GetItem'] },
    method: 'POST',
    path: '/play/session',
    auth: 'none',
    capacity: 'play',
    summary: 'Play page script: trade a session it has just consumed for the play cookie a refresh needs',
  },
] as const satisfies readonly RouteDefinition[];

/** Name of an operation in the routes table. */
export type OperationName = (typeof routes)[number]['operation'];

/**
 * The path API Gateway serves an operation on. Operations multiplexed on {@link API_PATH} by
 * `?action=` (or by method alone) get a path segment of their own, because API Gateway cannot
 * route on a query parameter; the edge rewrite and the local front map public requests onto it.
 */
export function originPath(route: RouteDefinition): string {
  return route.path === API_PATH ? `${API_PATH}/${route.operation}` : route.path;
}

/** Outcome of matching a public request against the routes table. */
export type RouteMatch =
  | { readonly kind: 'route'; readonly route: RouteDefinition; readonly params: Record<string, string> }
  | { readonly kind: 'unknown-action' | 'method-not-allowed' | 'not-found' };

/**
 * Match a public request (method, path, `action` query value) to its operation. This is the rule
 * the edge rewrite implements in CloudFront and the local front applies directly.
 */
export function matchRoute(
  method: string,
  path: string,
  action: string | undefined,
  table: readonly RouteDefinition[] = routes,
): RouteMatch {
  const onPath = table.flatMap((route) => {
    const params = matchPath(route.path, path);
    return params ? [{ route, params }] : [];
  });
  if (onPath.length === 0) return { kind: 'not-found' };
  const forAction = onPath.filter(({ route }) => route.action === (action || undefined));
  const hit = forAction.find(({ route }) => route.method === method);
  if (hit) return { kind: 'route', ...hit };
  return action && forAction.length === 0 ? { kind: 'unknown-action' } : { kind: 'method-not-allowed' };
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    const value = got[i]!;
    if (segment.startsWith('{') && segment.endsWith('}')) {
      const decoded = value ? decodePathSegment(value) : undefined;
      if (decoded === undefined) return undefined;
      params[segment.slice(1, -1)] = decoded;
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
}

/** A percent-encoded path segment, decoded; undefined when its escapes are malformed (it names nothing: 404). */
function decodePathSegment(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
