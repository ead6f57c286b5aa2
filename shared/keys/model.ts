/** An API key as stored, and the rate-limit state of its windows. */
import { type Tier } from '../catalog/index.js';
import type { StoredKeySettings } from './schemas.js';

/** The stored API key record (never the raw key): its settings (shared/keys/schemas.ts), its state and its bookkeeping. */
export interface ApiKeyRecord extends StoredKeySettings {
  readonly id: number;
  readonly org_id: number;
  /** SHA-256 of the raw key, hex. The table's partition key. */
  readonly key_hash: string;
  readonly key_prefix: string;
  readonly is_active: boolean;
  /**
   * The owning org's tier, copied here so authentication stays one read. Every tier change reaches
   * every key of the org (`OrgTiers.change`, shared/keys/org-tiers.ts).
   */
  readonly org_tier: Tier;
  /** The org's `tier_version` the copy was taken at (absent: 0). */
  readonly org_tier_version?: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_used_at: string | null;
  /**
   * Counts the changes of the key's limits (absent: 0, never changed); with `limits_changed_at`, the
   * time of the last one, it tells a call whether the day's counter layout changed
   * (CounterLayouts in shared/keys/rate-limit.ts). Internal: never in a key's view.
   */
  readonly limits_version?: number;
  readonly limits_changed_at?: string;
  /** Id of the key this one was rotated to (absent or null: never rotated). */
  readonly rotated_to?: number | null;
  /** Id of the key this one replaced by a rotation (absent or null: created directly). */
  readonly rotated_from?: number | null;
  /**
   * Who made the key's last admin change (create, update, rotation): the admin's subject, or
   * `mcp:<key id>` through the MCP server. The key events' `actor` (shared/webhooks/stream-events.ts);
   * absent on a key no admin wrote (the seed). Internal: never in a key's view.
   */
  readonly updated_by?: string;
}
