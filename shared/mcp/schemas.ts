/**
 * Schemas of the MCP server: the JSON-RPC message the endpoint accepts (validated before the key is
 * looked up, and documented loosely in the OpenAPI document), and the input and output of every
 * tool. Tool schemas are inline objects (no component ids): a tool's `inputSchema` must be an
 * object schema, not a `$ref`. Session fields reuse the REST schemas, so both paths share their rules.
 */
import * as z from 'zod/mini';
import { Id, SessionToken, withMeta } from '../platform/schemas.js';
import { PlayableChanges, PlayableFields, PlayUrl, someChange } from '../catalog/index.js';
import { Day, SessionReportFields } from '../usage/index.js';
import { CreatedSession, CreateSessionFields, SessionView, registerSessionDocs } from '../sessions/index.js';
import {
  DeliveryAttemptInline,
  DeliveryId,
  Description,
  deliveryViewFields,
  GivenFilter,
  recoveryResultFields,
  recoveryWindowFields,
  Secret,
  SubscribedEvents,
  Url,
  WebhookViewFields,
  windowInOrder,
} from '../webhooks/index.js';

// The create-session fields' descriptions, for this document only (not every function's bundle).
registerSessionDocs();

/** One JSON-RPC 2.0 message (request or notification) of the MCP Streamable HTTP transport. */
export const McpRequestBody = withMeta(
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: withMeta(z.optional(z.union([z.string(), z.int()])), { description: 'Absent for a notification.' }),
    method: withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(128))), { example: 'tools/call' }),
    params: z.optional(z.record(z.string(), z.unknown())),
  }),
  {
    id: 'McpMessage',
    description:
      'A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP, stateless): `initialize`, ' +
      '`tools/list`, `tools/call`, notifications. One message per request (no batches).',
  },
);
export type McpRequestBody = z.output<typeof McpRequestBody>;

/** The JSON-RPC answer (documentation only: the MCP SDK writes it). */
export const McpResponseBody = withMeta(
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.nullable(z.union([z.string(), z.int()])),
    result: z.optional(z.record(z.string(), z.unknown())),
    error: z.optional(z.object({ code: z.int(), message: z.string() })),
  }),
  { id: 'McpResult', description: 'The JSON-RPC response; a tool refusal is a result with `isError: true`.' },
);

// --- sessions (mcp:sessions:write)

/** create_session: the REST create-session body, rules included. */
export const CreateSessionArgs = CreateSessionFields;
/** create_session: the REST answer plus the ready play link. */
export const CreateSessionResult = z.extend(CreatedSession, {
  // Output schemas are published as they answer: the plain string, not the input's lower-casing transform.
  token: withMeta(z.uuid(), { description: 'The single-use session token.' }),
  play_url: withMeta(z.optional(PlayUrl), {
    description:
      'The play page with this token: send the player here. The link works once. Absent for a token bound to a player (play pages refuse it).',
  }),
});

/** revoke_session: the token. */
export const RevokeSessionArgs = z.object({ token: withMeta(SessionToken, { description: 'The session token to revoke.' }) });
/** revoke_session: the token's public view, as REST revoke-session answers it. */
export const RevokeSessionResult = z.object(SessionView.shape);

// --- games and streams (mcp:games:*, mcp:streams:*)

const GameId = withMeta(Id, { description: 'The game’s id (list_games lists them).' });
const StreamId = withMeta(Id, { description: 'The stream’s id (list_streams lists them).' });

/** The schemas of the game tools and of the stream tools. */
export const PlayableSchemas = {
  game: {
    view: z.object({ game_id: Id, ...PlayableFields }),
    list: z.object({ games: z.array(z.object({ game_id: Id, ...PlayableFields })) }),
    get: z.object({ game_id: GameId }),
    update: z.object({ game_id: GameId, ...PlayableChanges }).check(someChange),
  },
  stream: {
    view: z.object({ stream_id: Id, ...PlayableFields }),
    list: z.object({ streams: z.array(z.object({ stream_id: Id, ...PlayableFields })) }),
    get: z.object({ stream_id: StreamId }),
    update: z.object({ stream_id: StreamId, ...PlayableChanges }).check(someChange),
  },
} as const;

/** Tools that take no argument (list_games, list_streams). */
export const NoArgs = z.object({});

// --- reports (mcp:reports:read): shared with REST usage (`reports.ts`)

/** get_session_report: the range of creation days and optional filters. */
export const SessionReportArgs = z.object({
  from: withMeta(Day, { description: 'First creation day of the range (UTC).' }),
  to: withMeta(Day, { description: 'Last creation day, inclusive; at most 31 days after from.' }),
  game_id: withMeta(z.optional(Id), { description: 'Only sessions of this game.' }),
  stream_id: withMeta(z.optional(Id), { description: 'Only sessions of this stream.' }),
  key_id: withMeta(z.optional(Id), { description: 'Only sessions minted with this API key.' }),
});

/** get_session_report: the counts (see `SessionReport` in the domain). */
export const SessionReportResult = SessionReportFields;

// --- webhooks (mcp:connections:read, mcp:connections:write): the REST fields, inline

const WebhookId = withMeta(Id, { description: 'The webhook endpoint’s id (list_webhooks shows them).' });
const Webhook = z.object(WebhookViewFields);

/** create_webhook: the REST body, the org being the key's. */
export const CreateWebhookArgs = z.object({
  url: Url,
  events: SubscribedEvents,
  description: withMeta(z.optional(z.nullable(Description)), { description: 'What the endpoint is for; at most 500 characters.' }),
  filter: withMeta(z.optional(z.nullable(GivenFilter)), {
    description:
      'Which session events it receives (game_ids, stream_ids; a list absent or null: every one of its kind, empty: none). Always held within this API key’s allow-lists.',
  }),
});
/** update_webhook: the endpoint and what to change. */
export const UpdateWebhookArgs = z.object({
  webhook_id: WebhookId,
  url: withMeta(z.optional(Url), { description: 'A new URL (https://, public addresses only).' }),
  events: withMeta(z.optional(SubscribedEvents), { description: 'New event types, or ["*"] for all of them.' }),
  description: withMeta(z.optional(z.nullable(Description)), { description: 'A new description; null clears it.' }),
  filter: withMeta(z.optional(z.nullable(GivenFilter)), {
    description: 'A new filter, held within this API key’s allow-lists; null: all this key may see.',
  }),
  is_active: withMeta(z.optional(z.boolean()), { description: 'false pauses deliveries to the endpoint; true resumes them.' }),
});
export const WebhookIdArgs = z.object({ webhook_id: WebhookId });
export const WebhookList = z.object({ webhooks: z.array(Webhook) });
export const WebhookResult = Webhook;
export const CreatedWebhookResult = z.object({ ...WebhookViewFields, secret: Secret });
export const DeletedWebhookResult = z.object({ id: Id, deleted: z.literal(true) });

/** list_webhook_deliveries: a page of an endpoint's deliveries. */
export const ListDeliveriesArgs = z.object({
  webhook_id: WebhookId,
  cursor: withMeta(z.optional(DeliveryId), { description: 'next_cursor of the previous page, for the page after it.' }),
  limit: withMeta(z.optional(z.int().check(z.minimum(1), z.maximum(100))), { description: 'Deliveries per page, 1 to 100 (default 20).' }),
});
const Delivery = z.object(deliveryViewFields(DeliveryAttemptInline));
export const DeliveryPageResult = z.object({
  deliveries: z.array(Delivery),
  next_cursor: withMeta(z.nullable(z.string().check(z.maxLength(64))), {
    description: 'Pass as cursor for the next page; null on the last.',
  }),
});
export const RetryDeliveryArgs = z.object({ delivery_id: DeliveryId });
export const DeliveryResult = Delivery;

/** recover_webhook_deliveries: what an endpoint has not received in a window, sent again. */
export const RecoverDeliveriesArgs = z.object({ webhook_id: WebhookId, ...recoveryWindowFields }).check(windowInOrder);
export const RecoveryResult = z.object(recoveryResultFields);
