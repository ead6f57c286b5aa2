import { OutOfScope } from './errors.js';
import type { ApiKeyRecord, Playable } from './model.js';

/** What a session token is for: exactly one game or one stream. */
export interface Target {
  readonly kind: Playable['kind'];
  readonly id: number;
}

/**
 * Refuse a target outside the key's scope: another org's or an unknown game/stream, or one not in a
 * set allow-list (null = every one of the org, empty = none).
 * @throws OutOfScope
 */
export function assertInScope(
  key: Pick<ApiKeyRecord, 'org_id' | 'allowed_game_ids' | 'allowed_stream_ids'>,
  target: Target,
  playable: Playable | undefined,
): void {
  // A record written before an allow-list existed has none: undefined means "all", like null.
  const allowList = target.kind === 'game' ? key.allowed_game_ids : key.allowed_stream_ids;
  const inOrg = playable !== undefined && playable.org_id === key.org_id;
  if (!inOrg || (allowList != null && !allowList.includes(target.id))) {
    throw new OutOfScope(`This API key has no access to ${target.kind} ${target.id}`);
  }
}
