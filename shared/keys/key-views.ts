/** The admin's picture of API keys: the views key management answers with, and the inputs it takes. */
import type * as z from 'zod/mini';
import type { Frozen } from '../platform/route.js';
import type { KeySettings } from './api-keys.js';
import { ApiKeyView, type CreatedApiKey, type RotatedApiKey } from './schemas.js';
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

/** Each property of the view as the record holds it: the view's type, or absent. */
type Viewable = { readonly [K in keyof KeyView]: KeyView[K] | undefined };
const VIEWED = Object.keys(ApiKeyView.shape) as (keyof KeyView)[];

/** The admin's picture of a key (the view's properties of the record, an absent one as null): never the raw key, never the hash. */
export function keyView(key: ApiKeyRecord): KeyView {
  // Read as Required, so that tsc checks the record has every property of the view (an optional one may be absent), of the view's type.
  const record: Viewable = key as Required<ApiKeyRecord>;
  return Object.fromEntries(VIEWED.map((name) => [name, record[name] ?? null])) as unknown as KeyView;
}
