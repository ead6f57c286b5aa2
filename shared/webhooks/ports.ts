/** The webhooks feature's ports: where endpoints are stored, and how their secrets are sealed. */
import type { SealedSecrets, WebhookChanges, WebhookRecord } from './model.js';

/** Endpoints of organizations (`webhook-store.ts`: items of the catalog table). */
export interface WebhookStore {
  /** The org's endpoints by id (strongly consistent). */
  listByOrg(orgId: number): Promise<WebhookRecord[]>;
  /** One endpoint of the org; undefined when absent or another org's. */
  find(orgId: number, id: number): Promise<WebhookRecord | undefined>;
  /**
   * Store a new endpoint while the org has fewer than `max` (one transaction with the org's count).
   * @throws Conflict when the org already has `max`
   */
  create(record: WebhookRecord, max: number): Promise<void>;
  /** Change an endpoint of the org; undefined when absent. Returns it as it was and as it is now. */
  update(
    orgId: number,
    id: number,
    changes: WebhookChanges,
    atIso: string,
  ): Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined>;
  /**
   * Replace the sealed secrets, only while the current one is still `expected` (a concurrent
   * rotation is refused, not lost). @returns false when the endpoint is absent or changed meanwhile
   */
  replaceSecrets(orgId: number, id: number, expected: string, secrets: SealedSecrets, atIso: string): Promise<boolean>;
  /** Delete an endpoint of the org (and count it out). @returns false when absent */
  remove(orgId: number, id: number): Promise<boolean>;
}

/**
 * Seals endpoint secrets for storage and opens them for signing. `context` binds a sealed value to
 * its place (the org and endpoint): one copied to another item does not open.
 */
export interface SecretSealer {
  seal(secret: string, context: string): string;
  /** @throws when the value was not sealed by this key for this context */
  open(sealed: string, context: string): string;
}
