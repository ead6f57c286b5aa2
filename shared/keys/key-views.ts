/** The admin's picture of API keys: the views key management answers with, and the inputs it takes. */
import type * as z from 'zod/mini';
import type { Frozen } from '../platform/route.js';
import type { KeySettings } from './api-keys.js';
import type { ApiKeyView, CreatedApiKey, RotatedApiKey } from './schemas.js';
import type { ApiKeyRecord } from './model.js';
import type { KeyChanges } from './ports.js';

/** A key as org admins see it: every stored property except the hash and the internal tier copy. */
export type KeyView = Frozen<z.output<typeof ApiKeyView>>;

/** The create-key answer: the view plus the raw key, which is never available again. */
export type CreatedKey = Frozen<z.output<typeof CreatedApiKey>>;

/** A validated create-key request. */
export interface CreateKeyInput extends KeySettings {
  readonly org_id: number;
}

/** The rotate-key answer: the new key (raw key included, this once) and the old key as it now stands. */
export type RotatedKey = Frozen<z.output<typeof RotatedApiKey>>;

/** A validated rotate-key request. */
export interface RotateKeyInput {
  readonly id: number;
  readonly org_id: number;
  /** Minutes the old key keeps working; 0 revokes it at once. */
  readonly grace_period_minutes: number;
}

/** A validated update-key request: the key's address and the properties to change. */
export interface UpdateKeyInput extends KeyChanges {
  readonly id: number;
  readonly org_id: number;
}

/** The properties an update may carry, in the order the audit record lists them. */
export const CHANGEABLE_KEY_PROPERTIES = [
  'is_active',
  'name',
  'description',
  'allowed_game_ids',
  'allowed_stream_ids',
  'rate_limit_per_minute',
  'rate_limit_per_day',
  'expires_at',
  'mcp_scopes',
] as const satisfies readonly (keyof KeyChanges)[];

/** The admin's picture of a key: never the raw key, never the hash. */
export function keyView(key: ApiKeyRecord): KeyView {
  return {
    id: key.id,
    org_id: key.org_id,
    name: key.name,
    description: key.description,
    key_prefix: key.key_prefix,
    allowed_game_ids: key.allowed_game_ids,
    allowed_stream_ids: key.allowed_stream_ids,
    rate_limit_per_minute: key.rate_limit_per_minute,
    rate_limit_per_day: key.rate_limit_per_day,
    expires_at: key.expires_at,
    is_active: key.is_active,
    mcp_scopes: key.mcp_scopes,
    created_at: key.created_at,
    updated_at: key.updated_at,
    last_used_at: key.last_used_at ?? null,
    rotated_to: key.rotated_to ?? null,
    rotated_from: key.rotated_from ?? null,
  };
}
