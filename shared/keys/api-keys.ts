import { randomBytes } from 'node:crypto';
import { isoTime } from '../platform/clock.js';
import { hashApiKey } from './key-calls.js';
import type { ApiKeyRecord } from './model.js';
import type { Tier } from '../catalog/model.js';
import type { McpScope } from './mcp-scopes.js';

/** Defaults of a new key (spec: Limits). */
export const KEY_DEFAULTS = { rate_limit_per_minute: 60, rate_limit_per_day: 10_000 } as const;

/** A new raw key: `dpk_` and 40 lowercase hex characters from the CSPRNG (160 bits). */
export function generateRawKey(): string {
  return `dpk_${randomBytes(20).toString('hex')}`;
}

/** The settings an admin chooses for a key. */
export interface KeySettings {
  readonly name: string;
  readonly description?: string | null;
  readonly allowed_game_ids?: readonly number[] | null;
  readonly allowed_stream_ids?: readonly number[] | null;
  readonly rate_limit_per_minute?: number;
  readonly rate_limit_per_day?: number;
  readonly expires_at?: string | null;
  readonly mcp_scopes?: readonly McpScope[];
}

/** The stored record of a new key: its hash and prefix, never the raw key. */
export function newKeyRecord(
  rawKey: string,
  id: number,
  org: { org_id: number; tier: Tier; tier_version?: number },
  settings: KeySettings,
  nowMs: number,
): ApiKeyRecord {
  const now = isoTime(nowMs);
  return {
    id,
    org_id: org.org_id,
    key_hash: hashApiKey(rawKey),
    key_prefix: rawKey.slice(0, 8),
    name: settings.name,
    description: settings.description ?? null,
    allowed_game_ids: settings.allowed_game_ids ?? null,
    allowed_stream_ids: settings.allowed_stream_ids ?? null,
    rate_limit_per_minute: settings.rate_limit_per_minute ?? KEY_DEFAULTS.rate_limit_per_minute,
    rate_limit_per_day: settings.rate_limit_per_day ?? KEY_DEFAULTS.rate_limit_per_day,
    expires_at: settings.expires_at ?? null,
    is_active: true,
    mcp_scopes: settings.mcp_scopes ?? [],
    org_tier: org.tier,
    org_tier_version: org.tier_version ?? 0,
    created_at: now,
    updated_at: now,
    last_used_at: null,
  };
}
