/**
 * The deliveries' operations for an org's owners and admins (bearer): list an endpoint's
 * deliveries (any tier), retry one and send a test event (Business or higher, as creating an
 * endpoint). Each call is authorized from the catalog alongside its first read (`AdminAccess`)
 * and audited with the endpoint (`AdminAudit`, `webhook_id`), as endpoint management is; the
 * work itself is {@link WebhookDeliveries}', which the MCP tools share.
 */
import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from '../catalog/index.js';
import { AdminAudit, type AdminCall, type AuditStore } from '../audit/index.js';
import type { Clock } from '../platform/time.js';
import { NotFound, statusOf } from '../platform/errors.js';
import type { CallContext } from '../platform/call.js';
import { webhookOfDelivery } from './delivery-ids.js';
import type {
  ListWebhookDeliveriesQuery,
  RecoverWebhookBody,
  RetryWebhookDeliveryBody,
  TestWebhookBody,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookRecovery,
} from './schemas.js';
import { deliveryNotFound, webhookNotFound } from './refusals.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import type { WebhookRecord } from './model.js';

export interface WebhookDeliveryAdminDeps {
  readonly access: AdminAccess;
  readonly deliveries: WebhookDeliveries;
  readonly audit: AuditStore;
  readonly clock: Clock;
  readonly auditRetentionDays: number;
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/** See the module comment. */
export class WebhookDeliveryAdmin {
  private readonly audit: AdminAudit;

  constructor(private readonly deps: WebhookDeliveryAdminDeps) {
    this.audit = new AdminAudit(deps);
  }

  /** A page of the endpoint's deliveries, newest first (any tier). @throws NotFound (not the org's endpoint) */
  async list(admin: AdminIdentity, query: ListWebhookDeliveriesQuery, call: CallContext): Promise<WebhookDeliveryPage> {
    const adminCall: AdminCall = { admin, orgId: query.org_id, call, action: 'list-webhook-deliveries' };
    const { value: page } = await this.deps.access.authorize(
      admin,
      query.org_id,
      () => this.deps.deliveries.page(query.org_id, query.webhook_id, query.limit, query.cursor),
      { anyTier: true, permission: 'webhooks' },
    );
    if (!page) return this.missing(adminCall, query.webhook_id, webhookNotFound(query.org_id, query.webhook_id));
    await this.audit.note(adminCall, 200, { webhook_id: query.webhook_id });
    return page;
  }

  /** A new attempt of the delivery now. @throws NotFound (not a delivery of the org's), Conflict (the endpoint is paused) */
  async retry(admin: AdminIdentity, input: RetryWebhookDeliveryBody, call: CallContext): Promise<WebhookDelivery> {
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'retry-webhook-delivery' };
    const { value: found } = await this.deps.access.authorize(
      admin,
      input.org_id,
      () => this.deps.deliveries.find(input.org_id, input.delivery_id),
      {
        permission: 'webhooks',
      },
    );
    const webhookId = webhookOfDelivery(input.delivery_id) ?? null;
    if (!found) return this.missing(adminCall, webhookId, deliveryNotFound(input.org_id, input.delivery_id));
    return this.audit.audited(adminCall, { webhook_id: webhookId }, () => this.deps.deliveries.retry(found));
  }

  /** A `webhook.test` event to the endpoint. @throws NotFound (not the org's endpoint), Conflict (paused) */
  test(admin: AdminIdentity, input: TestWebhookBody, call: CallContext): Promise<WebhookDelivery> {
    return this.onEndpoint(admin, input, call, 'test-webhook', (endpoint) => this.deps.deliveries.test(endpoint));
  }

  /** Send again what the endpoint has not received in a window. @throws NotFound (not the org's endpoint), Conflict (paused) */
  recover(admin: AdminIdentity, input: RecoverWebhookBody, call: CallContext): Promise<WebhookRecovery> {
    return this.onEndpoint(admin, input, call, 'recover-webhook', (endpoint) => this.deps.deliveries.recover(endpoint, input));
  }

  /**
   * An audited action on one endpoint of the org: authorized with the endpoint's read beside it,
   * 404 (audited) when it is not the org's, else `work` on it, audited with the endpoint.
   */
  private async onEndpoint<T>(
    admin: AdminIdentity,
    input: { readonly org_id: number; readonly id: number },
    call: CallContext,
    action: string,
    work: (endpoint: WebhookRecord) => Promise<T>,
  ): Promise<T> {
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action };
    const { value: endpoint } = await this.deps.access.authorize(
      admin,
      input.org_id,
      () => this.deps.deliveries.endpoint(input.org_id, input.id),
      { permission: 'webhooks' },
    );
    if (!endpoint) return this.missing(adminCall, input.id, webhookNotFound(input.org_id, input.id));
    return this.audit.audited(adminCall, { webhook_id: input.id }, () => work(endpoint));
  }

  /** Audit a 404 (like any refused call), then throw it. */
  private async missing(adminCall: AdminCall, webhookId: number | null, error: NotFound): Promise<never> {
    await this.audit.note(adminCall, statusOf(error), { webhook_id: webhookId });
    throw error;
  }
}
