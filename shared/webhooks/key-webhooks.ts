/**
 * The org's endpoints as an API key manages them (the MCP tools, `mcp:connections:*`): the key is
 * its org's, so there is no membership to check, and the key's tier was checked when it
 * authenticated (keys work from Business up). The audit record is the caller's (the MCP request's,
 * with the key); the rules are those of `webhook-admin.ts` (`endpoints.ts`): the URL checked, at
 * most 20 endpoints, the secret answered once and stored sealed.
 *
 * An endpoint a key creates is bound to it (docs/decisions.md#endpoint-filters): its filter is the
 * one given within the key's allow-lists as they are then, and it receives key events of that key
 * only. A key changes or deletes only the endpoints bound to it (an admin's endpoint, or another
 * key's, is refused: changing its URL would let the key hear what its allow-lists keep from it),
 * and a filter it sets is again held within its allow-lists as they are at that change.
 */
import type { IdSource } from '../platform/ids.js';
import { type Clock, isoTime } from '../platform/time.js';
import type { HostLookup } from '../platform/services.js';
import type { Deployment } from './addresses.js';
import type { ApiKeyRecord } from '../keys/index.js';
import { Forbidden } from '../platform/errors.js';
import { boundFilter } from './endpoint-filter.js';
import { checkedUrl, endpointChanges, newEndpoint, resolvedUrl, webhookView } from './endpoints.js';
import { MAX_WEBHOOKS_PER_ORG, type WebhookChanges, type WebhookRecord } from './model.js';
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
  async changes(input: Pick<UpdateWebhookBody, 'url' | 'events' | 'description' | 'filter' | 'is_active'>): Promise<{
    changes: WebhookChanges;
    fields: (keyof WebhookChanges)[];
  }> {
    const planned = endpointChanges(input, this.deps.deployment);
    if (planned.changes.url !== undefined) await resolvedUrl(planned.changes.url, this.deps.deployment, this.deps.lookup);
    return planned;
  }

  /**
   * Create an endpoint of the key's org, bound to the key: its filter within the key's allow-lists.
   * Its secret is in this answer only. The URL's form is checked again here; its host was resolved
   * by {@link checkUrl}, which the tool calls first. @throws Conflict (the org's maximum)
   */
  async create(key: ApiKeyRecord, input: Omit<CreateWebhookBody, 'org_id'>): Promise<CreatedWebhook> {
    const id = await this.deps.webhookIds.nextId();
    const endpoint = {
      ...input,
      org_id: key.org_id,
      url: checkedUrl(input.url, this.deps.deployment),
      filter: boundFilter(key, input.filter),
      key_id: key.id,
    };
    const { record, secret } = newEndpoint(endpoint, id, this.deps.clock.now(), this.deps.sealer);
    await this.deps.webhooks.create(record, MAX_WEBHOOKS_PER_ORG);
    return { ...webhookView(record), secret };
  }

  /**
   * Change an endpoint bound to the key: the view after, and what the change was. A filter set is
   * held within the key's allow-lists. @throws NotFound, Forbidden (not bound to the key)
   */
  async update(key: ApiKeyRecord, id: number, changes: WebhookChanges): Promise<{ before: WebhookView; after: WebhookView }> {
    await this.boundTo(key, id);
    const held = changes.filter === undefined ? changes : { ...changes, filter: boundFilter(key, changes.filter) };
    const done = await this.deps.webhooks.update(key.org_id, id, held, isoTime(this.deps.clock.now()));
    if (!done) throw webhookNotFound(key.org_id, id);
    return { before: webhookView(done.before), after: webhookView(done.after) };
  }

  /** Delete an endpoint bound to the key. @throws NotFound, Forbidden (not bound to the key) */
  async remove(key: ApiKeyRecord, id: number): Promise<{ id: number; deleted: true }> {
    await this.boundTo(key, id);
    if (!(await this.deps.webhooks.remove(key.org_id, id))) throw webhookNotFound(key.org_id, id);
    return { id, deleted: true };
  }

  /** The endpoint `id` of the key's org, bound to the key (its binding never changes, so no write needs to check it again). */
  private async boundTo(key: ApiKeyRecord, id: number): Promise<WebhookRecord> {
    const endpoint = await this.deps.webhooks.find(key.org_id, id);
    if (!endpoint) throw webhookNotFound(key.org_id, id);
    if (endpoint.key_id !== key.id) {
      throw new Forbidden(`Webhook ${id} was not created with this API key: only an organization admin can change or delete it`);
    }
    return endpoint;
  }
}
