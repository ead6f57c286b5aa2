/** A key's state in a word, and its badge's tone (parts/badge.tsx). */
import type { ApiKey } from '../api';

/**
 * A key's state in a word (revoked, expired, rotated in its grace period, active), and the key that
 * replaced it once it was rotated: a rotation stays visible after the old key is revoked or expires.
 */
export function keyStatus(key: ApiKey, now = Date.now()): { text: string; tone: 'ok' | 'warn' | 'off' } {
  const successor = key.rotated_to === null ? undefined : `#${key.rotated_to}`;
  const ended = !key.is_active ? 'Revoked' : key.expires_at && Date.parse(key.expires_at) <= now ? 'Expired' : undefined;
  if (ended) return { text: successor ? `${ended}, rotated to ${successor}` : ended, tone: 'off' };
  return successor ? { text: `Rotated to ${successor}`, tone: 'warn' } : { text: 'Active', tone: 'ok' };
}
