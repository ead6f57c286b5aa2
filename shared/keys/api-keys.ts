import { randomBytes } from 'node:crypto';
import { isoTime } from '../platform/time.js';
import { hashApiKey } from './credential.js';
import type { ApiKeyRecord } from './model.js';
import type { Tier } from '../catalog/index.js';
import { KEY_SETTING_DEFAULTS, KEY_SETTING_NAMES, type StoredKeySettings } from './schemas.js';

/** A new raw key: `dpk_` and 40 lowercase hex characters from the CSPRNG (160 bits). */
export function generateRawKey(): string {
  return `dpk_${randomBytes(20).toString('hex')}`;
}

/** The settings an admin chooses for a key: those without a default, and any of the others. */
export type KeySettings = Omit<StoredKeySettings, Defaulted> & Partial<Pick<StoredKeySettings, Defaulted>>;
type Defaulted = keyof typeof KEY_SETTING_DEFAULTS;

/**
 * The stored record of a new key: its hash and prefix, never the raw key. Only the key settings
 * of `settings` are read (a rotation hands over the old key's whole record, its expiry set to null).
 */
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
    ...withDefaults(settings),
    is_active: true,
    org_tier: org.tier,
    org_tier_version: org.tier_version ?? 0,
    created_at: now,
    updated_at: now,
    last_used_at: null,
  };
}

/** Each key setting as chosen, else its default (null counts as not chosen where null is not the default). */
function withDefaults(chosen: KeySettings): StoredKeySettings {
  const defaults: Partial<StoredKeySettings> = KEY_SETTING_DEFAULTS;
  return Object.fromEntries(KEY_SETTING_NAMES.map((name) => [name, chosen[name] ?? defaults[name]])) as StoredKeySettings;
}
