/**
 * Webhook endpoint management for an org's owners and admins: list, create, update, delete, and
 * rotate the signing secret. Every call is authorized from the catalog alongside its first read
 * (`AdminAccess`), and every change is written beside its audit record (`AdminAudit`), as key
 * management does. Tiers as for keys: listing, pausing (`is_active: false`) and deleting at any
 * tier; creating, other changes and rotating need Business or higher.
 *
 * A secret leaves this class only in the answers of create and rotate; it is stored sealed
 * (`SecretSealer`) and never logged or audited.
 */
import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from '../catalog/index.js';
import { AdminAudit, type AdminCall, type AuditDiff, type AuditStore } from '../audit/index.js';
import { isoTime, type Clock } from '../platform/time.js';
import { Conflict, statusOf } from '../platform/errors.js';
import type { IdSource } from '../platform/ids.js';
import type { CallContext } from '../platform/call.js';
import type { Deployment } from './addresses.js';
import type { HostLookup } from '../platform/services.js';
import { checkedUrl, endpointChanges, endpointDiff, newEndpoint, resolvedUrl, webhookView } from './endpoints.js';
import { normalizedFilter } from './endpoint-filter.js';
import { MAX_WEBHOOKS_PER_ORG, type WebhookChanges, type WebhookRecord } from './model.js';
import type { SecretSealer, WebhookStore } from './ports.js';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  RotatedWebhookSecret,
  RotateWebhookSecretBody,
  UpdateWebhookBody,
  WebhookView,
} from './schemas.js';
import { sealingContext } from './secret-sealer.js';
import { rotatedSecrets } from './signing.js';
import { webhookNotFound } from './refusals.js';

export interface WebhookAdminDeps {
  readonly access: AdminAccess;
  readonly webhooks: WebhookStore;
  readonly sealer: SecretSealer;
  readonly audit: AuditStore;
  readonly webhookIds: IdSource;
  readonly clock: Clock;
  /** Which URLs are accepted (`addresses.ts`): locally also `http://localhost`. */
  readonly deployment: Deployment;
  /** Resolves the URL's host at create and update (`endpoints.ts` `resolvedUrl`). */
  readonly lookup: HostLookup;
  readonly auditRetentionDays: number;
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/** See the module comment. */
export class WebhookAdmin {
  private readonly audit: AdminAudit;

  constructor(private readonly deps: WebhookAdminDeps) {
    this.audit = new AdminAudit(deps);
  }

  /** The org's endpoints, never a secret. */
  async list(admin: AdminIdentity, orgId: number, call: CallContext): Promise<WebhookView[]> {
    const { value: endpoints } = await this.deps.access.authorize(admin, orgId, () => this.deps.webhooks.listByOrg(orgId), {
      anyTier: true,
      permission: 'webhooks',
    });
    await this.audit.note({ admin, orgId, call, action: 'list-webhooks' }, 200);
    return endpoints.map(webhookView);
  }

  /**
   * Create an endpoint; its secret is in this answer only. The URL's form is checked first, its host
   * resolved once the caller may manage the org's webhooks (nobody else makes the service resolve
   * names). @throws InvalidInput (url), Conflict (the org's maximum)
   */
  async create(admin: AdminIdentity, input: CreateWebhookBody, call: CallContext): Promise<CreatedWebhook> {
    const url = checkedUrl(input.url, this.deps.deployment);
    let reserved: number | undefined;
    const { value: id } = await this.deps.access
      .authorize(admin, input.org_id, async () => (reserved = await this.deps.webhookIds.nextId()), { permission: 'webhooks' })
      .then(async (authorized) => {
        await resolvedUrl(url, this.deps.deployment, this.deps.lookup);
        return authorized;
      })
      .catch((refusal: unknown) => {
        if (reserved !== undefined) this.deps.webhookIds.release(reserved);
        throw refusal;
      });
    const filter = normalizedFilter(input.filter);
    const { record, secret } = newEndpoint({ ...input, url, filter, key_id: null }, id, this.deps.clock.now(), this.deps.sealer);
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'create-webhook' };
    await this.audit.audited(adminCall, { webhook_id: id }, () => this.deps.webhooks.create(record, MAX_WEBHOOKS_PER_ORG));
    return { ...webhookView(record), secret };
  }

  /** Change an endpoint; `is_active: false` pauses it (any tier), every other change needs the tier. */
  async update(admin: AdminIdentity, input: UpdateWebhookBody, call: CallContext): Promise<WebhookView> {
    const { changes, fields } = endpointChanges(input, this.deps.deployment);
    const pauseOnly = changes.is_active === false && fields.length === 1;
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'update-webhook' };
    const endpoint = await this.find(adminCall, input.id, pauseOnly);
    if (changes.url !== undefined) await resolvedUrl(changes.url, this.deps.deployment, this.deps.lookup);
    const diff = endpointDiff(endpoint, { ...endpoint, ...changes }, fields);
    const updated = await this.audited(adminCall, input.id, fields, diff, () =>
      this.deps.webhooks.update(input.org_id, input.id, changes, isoTime(this.deps.clock.now())),
    );
    return webhookView(updated.after);
  }

  /** Delete an endpoint (any tier). */
  async remove(admin: AdminIdentity, orgId: number, id: number, call: CallContext): Promise<{ id: number; deleted: true }> {
    const adminCall: AdminCall = { admin, orgId, call, action: 'delete-webhook' };
    await this.find(adminCall, id, true);
    await this.audit.audited(adminCall, { webhook_id: id }, async () => {
      if (!(await this.deps.webhooks.remove(orgId, id))) throw webhookNotFound(orgId, id);
    });
    return { id, deleted: true };
  }

  /**
   * A new secret; the previous one keeps signing beside it for 24 hours (`signing.ts`), so a
   * receiver can switch without losing a delivery. A second rotation within that time drops the oldest.
   */
  async rotate(admin: AdminIdentity, input: RotateWebhookSecretBody, call: CallContext): Promise<RotatedWebhookSecret> {
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'rotate-webhook-secret' };
    const endpoint = await this.find(adminCall, input.id);
    const context = sealingContext(endpoint.org_id, endpoint.id);
    const { sealer } = this.deps;
    const now = this.deps.clock.now();
    const next = rotatedSecrets({ secret: sealer.open(endpoint.secret_sealed, context) }, now);
    // A rotation always keeps the secret it replaces (signing.ts): never null here.
    const previous = next.previous_secret!;
    const until = next.previous_secret_until!;
    const sealed = {
      secret_sealed: sealer.seal(next.secret, context),
      previous_secret_sealed: sealer.seal(previous, context),
      previous_secret_until: until,
    };
    await this.audit.audited(adminCall, { webhook_id: input.id, changes: ['secret'] }, async () => {
      const replaced = await this.deps.webhooks.replaceSecrets(input.org_id, input.id, endpoint.secret_sealed, sealed, isoTime(now));
      if (!replaced) throw new Conflict(`Webhook ${input.id} changed meanwhile (deleted, or its secret rotated): try again`);
    });
    return { id: input.id, secret: next.secret, previous_secret_expires_at: until };
  }

  /** An update's write with its audit record, the diff from the write's own answer. */
  private async audited(
    adminCall: AdminCall,
    id: number,
    fields: readonly (keyof WebhookChanges & string)[],
    diff: AuditDiff,
    write: () => Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined>,
  ): Promise<{ before: WebhookRecord; after: WebhookRecord }> {
    return this.audit.audited(
      adminCall,
      { webhook_id: id, changes: fields, diff },
      async () => {
        const done = await write();
        if (!done) throw webhookNotFound(adminCall.orgId, id);
        return done;
      },
      ({ before, after }) => endpointDiff(before, after, fields),
    );
  }

  /**
   * The endpoint `id` of the call's org, once the admin may manage that org's webhooks. Another
   * org's endpoint reads as absent (404); the refusal is audited like any call.
   */
  private async find(adminCall: AdminCall, id: number, anyTier = false): Promise<WebhookRecord> {
    const { value: endpoint } = await this.deps.access.authorize(
      adminCall.admin,
      adminCall.orgId,
      () => this.deps.webhooks.find(adminCall.orgId, id),
      { anyTier, permission: 'webhooks' },
    );
    if (endpoint) return endpoint;
    const missing = webhookNotFound(adminCall.orgId, id);
    await this.audit.note(adminCall, statusOf(missing), { webhook_id: id });
    throw missing;
  }
}
