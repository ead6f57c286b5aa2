/**
 * The conditions of a key's update expression: the key is still where it was found, a rotation's
 * own write finds it unrotated and active, and a rotated key's life only shortens.
 */
import type { KeyAddress, KeyChanges, KeyUpdateOptions } from './ports.js';

/** The key has never been rotated (`rotated_to` absent or null). */
const NOT_ROTATED = '(attribute_not_exists(rotated_to) OR attribute_type(rotated_to, :null))';

/**
 * The condition a rotated key must meet for `changes` to apply to it (its life only shortens), with
 * its values added to `values`: undefined when the changes touch neither `is_active: true` nor
 * `expires_at`, null when they cannot apply to a rotated key at all (clearing its expiry). Setting
 * `is_active: true` passes only where it changes nothing (the key is still in its grace period); a
 * new expiry only where it is no later than the current one.
 */
function rotatedKeyGuard(changes: KeyChanges, values: Record<string, unknown>): string | null | undefined {
  if (changes.expires_at === null) return null;
  const parts: string[] = [];
  if (changes.is_active === true) {
    parts.push('is_active = :true');
    values[':true'] = true;
  }
  if (typeof changes.expires_at === 'string') {
    // ISO 8601 UTC with milliseconds (the schema normalizes it), so strings compare as times.
    parts.push('attribute_type(expires_at, :s) AND expires_at >= :newExpiry');
    Object.assign(values, { ':s': 'S', ':newExpiry': changes.expires_at });
  }
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

/** Why a rotated key cannot be brought back (409): what a refusal of its guard answers. */
export function retiredMessage(id: number, rotatedTo: number): string {
  return `API key ${id} was rotated to key ${rotatedTo}: it cannot be reactivated and its expiry cannot be extended`;
}

/**
 * The conditions of a key's update: the key is still there in its org (the id item that found it
 * may be stale), and those of the options. `guard` is the rotated-key guard, for the refusal's reason.
 */
export function updateConditions(
  key: KeyAddress,
  changes: KeyChanges,
  options: KeyUpdateOptions,
): { conditions: string[]; values: Record<string, unknown>; guard: string | null | undefined } {
  const values: Record<string, unknown> = { ':org': key.org_id, ':id': key.id };
  // The id item that found the key may be stale: the key must still be there, in that org.
  const conditions = ['org_id = :org AND id = :id'];
  if (options.unrotated) {
    // A rotation's own write: no other rotation got there first, and the key was not revoked meanwhile.
    conditions.push(`${NOT_ROTATED} AND is_active = :true`);
    Object.assign(values, { ':null': 'NULL', ':true': true });
  }
  // A rotated key's life only shortens (docs/decisions.md#key-rotation: a rotation never lengthens it).
  const guard = options.retiredStaysRetired ? rotatedKeyGuard(changes, values) : undefined;
  if (guard !== undefined) {
    conditions.push(guard === null ? NOT_ROTATED : `(${NOT_ROTATED} OR (${guard}))`);
    values[':null'] = 'NULL';
  }
  return { conditions, values, guard };
}
