/** What is stored of a webhook endpoint: an org resource, its signing secrets sealed (`ports.ts`, `SecretSealer`). */
import type { EndpointFilter } from './schemas.js';

/** An endpoint as the store holds it. The secrets are sealed: the table alone holds no usable secret. */
export interface WebhookRecord {
  readonly id: number;
  readonly org_id: number;
  readonly url: string;
  /** Event types, or `["*"]`. */
  readonly events: readonly string[];
  readonly description: string | null;
  /**
   * Which session events it receives (`endpoint-filter.ts`); null, or absent on an endpoint stored
   * before filters existed: all of them.
   */
  readonly filter?: EndpointFilter | null;
  /**
   * The API key it was created with (MCP), never changed: its filter lies within that key's
   * allow-lists, and it receives key events of that key only. Null or absent: an admin's endpoint.
   */
  readonly key_id?: number | null;
  readonly is_active: boolean;
  /** ISO 8601. */
  readonly created_at: string;
  readonly updated_at: string;
  /** The current secret, sealed. */
  readonly secret_sealed: string;
  /** The secret a rotation replaced, sealed; it signs beside the current one until `previous_secret_until`. */
  readonly previous_secret_sealed: string | null;
  readonly previous_secret_until: string | null;
  /**
   * ISO 8601: since when every attempt to it has failed (`schedule.ts`, `endpointAfterAttempt`);
   * null or absent when its last attempt succeeded, or none was made yet. Written by the delivery worker.
   */
  readonly failing_since?: string | null;
  /**
   * ISO 8601: when `is_active` last went from true to false (an admin's or a key's pause, a 410, the
   * 5-days-of-failures rule). Stored only while the endpoint is paused, and absent otherwise (never
   * null), so that a pause can keep an earlier one with `if_not_exists` in the same write.
   * Absent on an endpoint paused before the field existed: unknown.
   */
  readonly paused_at?: string;
}

/** What an update may change. */
export interface WebhookChanges {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly description?: string | null;
  /** Null removes the filter. */
  readonly filter?: EndpointFilter | null;
  readonly is_active?: boolean;
}

/** The sealed secrets a rotation writes. */
export interface SealedSecrets {
  readonly secret_sealed: string;
  readonly previous_secret_sealed: string | null;
  readonly previous_secret_until: string | null;
}

/** At most this many endpoints per organization (docs/webhooks.md). */
export const MAX_WEBHOOKS_PER_ORG = 20;
