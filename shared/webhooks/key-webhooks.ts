/**
 * The org's endpoints as an API key manages them (the MCP tools, `mcp:connections:*`): the key is
 * its org's, so there is no membership to check, and the key's tier was checked when it
 * authenticated (keys work from Business up). The audit record is the caller's (the MCP request's,
 * with the key); the rules are those of `webhook-admin.ts` (`endpoints.ts`): the URL checked, at
 * most 20 endpoints, the secret answered once and stored sealed.
 */
import type { IdSource } from '../platform/ids.js';
import { type Clock, isoTime } from '../platform/time.js';
import type { HostLookup } from '../platform/services.js';
import type { Deployment } from './addresses.js';
import { checkedUrl, endpointChanges, newEndpoint, resolvedUrl, webhookView } from './endpoints.js';
import { MAX_WEBHOOKS_PER_ORG, type WebhookChanges } from './model.js';
import type { SecretSealer, WebhookStore } from './ports.js';
import { webhookNotFound } from './refusals.js';
import type { CreatedWebhook, CreateWebhookBody, UpdateWebhookBody, WebhookView } from './schemas.js';

export interface KeyWebhooksDeps {
  readonly webhooks: WebhookStore;
  readonly sealer: SecretSealer;
  readonly webhookIds: IdSource;
  readonly clock: Clock;
  readonly deployment: Deployment;
  /** Resolves the URL's host (`endpoints.ts` `resolvedUrl`). */
  readonly lookup: HostLookup;
}

/** See the module comment. */
export class KeyWebhooks {
  constructor(private readonly deps: KeyWebhooksDeps) {}

  /** The org's endpoints, never a secret. */
  async list(orgId: number): Promise<WebhookView[]> {
    return (await this.deps.webhooks.listByOrg(orgId)).map(webhookView);
  }

  /**
   * The URL as given, when it may be used: its form, then its host resolved (the tools check it
   * before the call is metered, then {@link create} takes it). @throws InvalidInput on `url`
   */
  async checkUrl(url: string): Promise<string> {
    return resolvedUrl(checkedUrl(url, this.deps.deployment), this.deps.deployment, this.deps.lookup);
  }

  /** The changes of an update, the URL checked (its host resolved). @throws InvalidInput on `url` */
  async changes(input: Pick<UpdateWebhookBody, 'url' | 'events' | 'description' | 'is_active'>): Promise<{
    changes: WebhookChanges;
    fields: (keyof WebhookChanges)[];
  }> {
    const planned = endpointChanges(input, this.deps.deployment);
    if (planned.changes.url !== undefined) await resolvedUrl(planned.changes.url, this.deps.deployment, this.deps.lookup);
    return planned;
  }

  /**
   * Create an endpoint of the org; its secret is in this answer only. The URL's form is checked
   * again here; its host was resolved by {@link checkUrl}, which the tool calls first.
   * @throws Conflict (the org's maximum)
   */
  async create(input: CreateWebhookBody): Promise<CreatedWebhook> {
    const id = await this.deps.webhookIds.nextId();
    const { record, secret } = newEndpoint(
      { ...input, url: checkedUrl(input.url, this.deps.deployment) },
      id,
      this.deps.clock.now(),
      this.deps.sealer,
    );
    await this.deps.webhooks.create(record, MAX_WEBHOOKS_PER_ORG);
    return { ...webhookView(record), secret };
  }

  /** Change an endpoint of the org: the view after, and what the change was. @throws NotFound */
  async update(orgId: number, id: number, changes: WebhookChanges): Promise<{ before: WebhookView; after: WebhookView }> {
    const done = await this.deps.webhooks.update(orgId, id, changes, isoTime(this.deps.clock.now()));
    if (!done) throw webhookNotFound(orgId, id);
    return { before: webhookView(done.before), after: webhookView(done.after) };
  }

  /** Delete an endpoint of the org. @throws NotFound */
  async remove(orgId: number, id: number): Promise<{ id: number; deleted: true }> {
    if (!(await this.deps.webhooks.remove(orgId, id))) throw webhookNotFound(orgId, id);
    return { id, deleted: true };
  }
}
