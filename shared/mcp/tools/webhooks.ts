/**
 * Webhook tools: list the org's endpoints and an endpoint's deliveries (mcp:connections:read);
 * create, update and delete endpoints, retry a delivery and recover what an endpoint missed
 * (mcp:connections:write). They act on the
 * key's own organization only (another org's endpoint is "not found", like a missing one), with the
 * REST operations' rules (`shared/webhooks/`: the URL check, at most 20 endpoints, the secret
 * answered once by create_webhook and never again, a paused endpoint sent nothing). An endpoint
 * created here is bound to the key: its filter within the key's allow-lists, key events of that key
 * only, and only that key changes or deletes it through MCP (`KeyWebhooks`). Each request is
 * counted and audited once (`mcp:tools/call:<tool>`, with the endpoint), its write beside the count.
 */
import type { AuditDiff } from '../../audit/index.js';
import { scopeOfTool } from '../../keys/index.js';
import {
  CreatedWebhookResult,
  CreateWebhookArgs,
  DeletedWebhookResult,
  DeliveryPageResult,
  DeliveryResult,
  ListDeliveriesArgs,
  NoArgs,
  RecoverDeliveriesArgs,
  RecoveryResult,
  RetryDeliveryArgs,
  UpdateWebhookArgs,
  WebhookIdArgs,
  WebhookList,
  WebhookResult,
} from '../schemas.js';
import { defineTool, reading, type McpTool } from '../tool.js';
import { deliveryNotFound, endpointDiff, webhookNotFound, type WebhookDelivery } from '../../webhooks/index.js';
import { InvalidInput } from '../../platform/errors.js';

/** Deliveries per page when the tool is given no `limit` (as REST). */
const DEFAULT_PAGE = 20;

/** list_webhooks: the organization's endpoints, never a secret. */
const listWebhooks = defineTool({
  name: 'list_webhooks',
  title: 'List webhook endpoints',
  description:
    'The webhook endpoints of your organization: URL, event types, description, and whether deliveries are paused. Never a secret.',
  scope: scopeOfTool('list_webhooks'),
  input: NoArgs,
  output: WebhookList,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, { key, services, meter }) {
    const webhooks = await meter.run(
      {},
      reading(() => services.keyWebhooks.list(key.org_id)),
    );
    return {
      data: { webhooks },
      summary: webhooks.length
        ? webhooks.map((w) => `Webhook ${w.id} ${w.is_active ? 'active' : 'paused'}: ${w.url} (${w.events.join(', ')})`).join('\n')
        : 'Your organization has no webhook endpoints.',
    };
  },
});

/** create_webhook: register an endpoint; the secret is answered here only. */
const createWebhook = defineTool({
  name: 'create_webhook',
  title: 'Create a webhook endpoint',
  description:
    'Register a webhook endpoint of your organization: events are signed (Standard Webhooks) and sent to url ' +
    '(https://, public addresses only). events lists the event types, or ["*"] for all; filter limits session ' +
    'events to games and streams. The endpoint is bound to this API key: it receives session events only within the ' +
    'key’s allowed games and streams, and key events only of this key. The answer holds the signing secret, shown ' +
    'only this once: store it now. At most 20 endpoints per organization.',
  scope: scopeOfTool('create_webhook'),
  input: CreateWebhookArgs,
  output: CreatedWebhookResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, { key, services, meter }) {
    const refused = await tryUrl(() => services.keyWebhooks.checkUrl(args.url));
    if (refused) await meter.refuse({}, refused);
    const created = await meter.run({}, { run: () => services.keyWebhooks.create(key, args) });
    return {
      data: created,
      summary: `Webhook ${created.id} created for ${created.url}. Its signing secret, shown only now: ${created.secret}`,
    };
  },
});

/** update_webhook: change an endpoint, or pause or resume it. */
const updateWebhook = defineTool({
  name: 'update_webhook',
  title: 'Update a webhook endpoint',
  description:
    'Change a webhook endpoint created with this API key: its url, events, description, filter (held within the ' +
    'key’s allowed games and streams), or pause it (is_active false) and resume it (true). What is left out stays as it is.',
  scope: scopeOfTool('update_webhook'),
  input: UpdateWebhookArgs,
  output: WebhookResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ webhook_id, ...input }, { key, services, meter }) {
    let planned: Awaited<ReturnType<typeof services.keyWebhooks.changes>> | undefined;
    const refused = await tryUrl(async () => (planned = await services.keyWebhooks.changes(input)));
    if (refused || !planned) return meter.refuse({ webhook_id }, refused!);
    const { changes, fields } = planned;
    const done = await meter.run(
      { webhook_id, changes: fields },
      {
        run: () => services.keyWebhooks.update(key, webhook_id, changes),
        diff: ({ before, after }): AuditDiff => endpointDiff(before, after, fields),
      },
    );
    return { data: done.after, summary: `Webhook ${webhook_id} updated: ${done.after.is_active ? 'active' : 'paused'}, ${done.after.url}` };
  },
});

/** delete_webhook: remove an endpoint. */
const deleteWebhook = defineTool({
  name: 'delete_webhook',
  title: 'Delete a webhook endpoint',
  description: 'Delete a webhook endpoint created with this API key: nothing more is sent to it.',
  scope: scopeOfTool('delete_webhook'),
  input: WebhookIdArgs,
  output: DeletedWebhookResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ webhook_id }, { key, services, meter }) {
    const deleted = await meter.run({ webhook_id }, { run: () => services.keyWebhooks.remove(key, webhook_id) });
    return { data: deleted, summary: `Webhook ${webhook_id} deleted.` };
  },
});

/** list_webhook_deliveries: an endpoint's deliveries, newest first, with their attempts. */
const listWebhookDeliveries = defineTool({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  description:
    'The deliveries of one webhook endpoint of your organization, newest first (kept 30 days): event type, status ' +
    '(pending, succeeded, failed and retrying, exhausted) and every attempt with its response code. Pass next_cursor ' +
    'as cursor for the next page.',
  scope: scopeOfTool('list_webhook_deliveries'),
  input: ListDeliveriesArgs,
  output: DeliveryPageResult,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ webhook_id, cursor, limit }, { key, services, meter }) {
    const page = await meter.run(
      { webhook_id },
      reading(async () => {
        const found = await services.webhookDeliveries.page(key.org_id, webhook_id, limit ?? DEFAULT_PAGE, cursor);
        if (!found) throw webhookNotFound(key.org_id, webhook_id);
        return found;
      }),
    );
    return {
      data: { deliveries: page.deliveries.map(withoutPayload), next_cursor: page.next_cursor },
      summary: page.deliveries.length
        ? page.deliveries
            .map((d) => `${d.id} ${d.event_type}: ${d.status} after ${d.attempts} attempt(s), last status ${d.last_status_code ?? 'none'}`)
            .join('\n')
        : `Webhook ${webhook_id} has no deliveries.`,
    };
  },
});

/** retry_webhook_delivery: a new attempt now. */
const retryWebhookDelivery = defineTool({
  name: 'retry_webhook_delivery',
  title: 'Retry a webhook delivery',
  description:
    'Attempt a delivery again now (the same webhook-id: receivers drop repeats), unless an attempt of it is already ' +
    'due or under way (then a delivery_attempt_pending error: retry once it has ended). delivery_id is the id ' +
    'list_webhook_deliveries shows (msg_…). Retries and tests are at most 60 a minute and 1,000 a day per ' +
    'organization, REST and MCP together; beyond, the request is answered 429 with Retry-After.',
  scope: scopeOfTool('retry_webhook_delivery'),
  input: RetryDeliveryArgs,
  output: DeliveryResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ delivery_id }, { key, services, meter }) {
    const found = await services.webhookDeliveries.find(key.org_id, delivery_id);
    const webhook_id = found?.endpoint.id ?? null;
    if (!found) return meter.refuse({ webhook_id }, deliveryNotFound(key.org_id, delivery_id));
    const retried = await meter.run({ webhook_id }, { run: () => services.webhookDeliveries.retry(found) });
    return { data: withoutPayload(retried), summary: `Delivery ${delivery_id} will be attempted again now.` };
  },
});

/** recover_webhook_deliveries: what an endpoint has not received in a window, sent again (or counted). */
const recoverWebhookDeliveries = defineTool({
  name: 'recover_webhook_deliveries',
  title: 'Recover missed webhook events',
  description:
    'Send again every event of a window (since, until: ISO 8601; until defaults to now) that a webhook endpoint of your ' +
    'organization has not received with a 2xx: those that happened while it was paused or disabled, and those whose ' +
    'attempts failed. Each goes with the same webhook-id as before (receivers drop repeats), at the endpoint’s normal ' +
    'pace. Events are kept 30 days; at most 1,000 are sent a call (next_since: call again from there). dry_run: true ' +
    'counts them and sends nothing. The endpoint must be active; a recovery counts as one of the organization’s ' +
    'retries and tests (60 a minute, 1,000 a day).',
  scope: scopeOfTool('recover_webhook_deliveries'),
  input: RecoverDeliveriesArgs,
  output: RecoveryResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ webhook_id, ...window }, { key, services, meter }) {
    const endpoint = await services.webhookDeliveries.endpoint(key.org_id, webhook_id);
    if (!endpoint) return meter.refuse({ webhook_id }, webhookNotFound(key.org_id, webhook_id));
    const recovery = await meter.run({ webhook_id }, { run: () => services.webhookDeliveries.recover(endpoint, window) });
    const what = recovery.dry_run ? 'would be sent' : 'queued to be sent again';
    const more = recovery.next_since === null ? '' : ` More remain: call again with since ${recovery.next_since}.`;
    return {
      data: recovery,
      summary: `${recovery.count} event(s) of webhook ${webhook_id} between ${recovery.since} and ${recovery.until} ${what}.${more}`,
    };
  },
});

/** The webhook tools, in the order tools/list shows them. */
export const webhookTools: readonly McpTool[] = [
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  retryWebhookDelivery,
  recoverWebhookDeliveries,
] as readonly McpTool[];

/**
 * A delivery without its payload, as MCP answers it: the SDK checks a tool's structured result
 * against its output schema but sends the result as given, so a field the schema lacks would go
 * out. A key may call these tools on any endpoint of its org, an admin's included, whose events
 * may be of games and streams outside the key's allow-lists (docs/decisions.md#delivery-payload).
 */
function withoutPayload({ payload: _payload, ...delivery }: WebhookDelivery): Omit<WebhookDelivery, 'payload'> {
  return delivery;
}

/** The refusal of a URL check (its host resolved), or undefined when it passes. */
async function tryUrl(check: () => Promise<unknown>): Promise<Error | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    if (error instanceof InvalidInput) return error;
    throw error;
  }
}
