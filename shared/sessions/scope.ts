import { OutOfScope } from '../platform/errors.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { Playable } from '../catalog/index.js';

/** What a session token is for: exactly one game or one stream. */
export interface Target {
  readonly kind: Playable['kind'];
  readonly id: number;
}

/** The part of a key that bounds what it may touch: its org and its allow-lists. */
export type KeyScope = Pick<ApiKeyRecord, 'org_id' | 'allowed_game_ids' | 'allowed_stream_ids'>;

/**
 * THE allow-list rule, for everything a key does (docs/decisions.md#scopes): a list that is absent
 * (null) allows every game or stream of its kind, a set list only its ids (empty: none). The org is
 * not looked at here.
 */
export function isAllowed(key: Omit<KeyScope, 'org_id'>, target: Target): boolean {
  // A record written before an allow-list existed has none: undefined means "all", like null.
  const allowList = target.kind === 'game' ? key.allowed_game_ids : key.allowed_stream_ids;
  return allowList == null || allowList.includes(target.id);
}

/** Whether either allow-list is set: the key does not serve every game and stream of its org. */
export function isRestricted(key: Omit<KeyScope, 'org_id'>): boolean {
  return key.allowed_game_ids != null || key.allowed_stream_ids != null;
}

/** Whether a key's allow-lists cover a token, report row or audited call: any when neither list is set, else only an allowed game or stream. */
export function allowsItem(
  key: Omit<KeyScope, 'org_id'>,
  item: { readonly game_id: number | null; readonly stream_id: number | null },
): boolean {
  if (!isRestricted(key)) return true;
  const target = namedTarget(item);
  return target !== undefined && isAllowed(key, target);
}

/** The one game or stream a token, a report row or an audited call names (undefined: neither). */
export function namedTarget(item: { readonly game_id: number | null; readonly stream_id: number | null }): Target | undefined {
  if (item.game_id != null) return { kind: 'game', id: item.game_id };
  if (item.stream_id != null) return { kind: 'stream', id: item.stream_id };
  return undefined;
}

/** The refusal of a target outside a key's scope: 403 `out_of_scope`, the "no access" of MCP tools. */
export function outOfScope(target: Target): OutOfScope {
  return new OutOfScope(`This API key has no access to ${target.kind} ${target.id}`);
}

/** Refuse a target outside the key's allow-lists (its org is checked elsewhere). @throws OutOfScope */
function assertAllowed(key: Omit<KeyScope, 'org_id'>, target: Target): void {
  if (!isAllowed(key, target)) throw outOfScope(target);
}

/**
 * Refuse a target outside the key's scope: another org's or an unknown game/stream, or one not in a
 * set allow-list ({@link isAllowed}).
 * @throws OutOfScope
 */
export function assertInScope(key: KeyScope, target: Target, playable: Playable | undefined): void {
  const inOrg = playable !== undefined && playable.org_id === key.org_id;
  if (!inOrg) throw outOfScope(target);
  assertAllowed(key, target);
}
