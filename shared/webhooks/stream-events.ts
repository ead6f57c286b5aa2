/**
 * What a change of a streamed table means for webhooks (design "Event sources"): the events a
 * stream record of the tokens, keys or counters table makes, and the due items it leaves for the
 * events that happen by time. Pure: the worker (`workers/webhook-events.ts`) hands over the record
 * with its images unmarshalled, and does the reads a rule needs (who deleted a key; whether an org
 * wants `session.expired`) and the writes.
 *
 * Each record is read alone, so a record delivered twice (a batch retried) makes the same events
 * with the same `source_id` (its `eventID`): their deliveries get the same ids, made once.
 */
import type { ApiKeyRecord } from '../keys/index.js';
import { tokenRecordOf } from '../sessions/index.js';
import type { DueItem, SourcedEvent } from './delivery-model.js';
import { keyChanged, keyRateLimited, sessionConsumed, sessionRevoked } from './events-from-records.js';

/** The tables whose streams carry events. */
export type StreamedTable = 'tokens' | 'keys' | 'counters';

/** An item image, unmarshalled. */
export type Image = Readonly<Record<string, unknown>>;

/** One stream record, as the rules read it. */
export interface StreamChange {
  readonly table: StreamedTable;
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** Unique per change, the same when the record is read again: the events' `source_id`. */
  readonly eventID: string;
  /** When the change was written (the record's approximate creation time), epoch ms. */
  readonly atMs: number;
  readonly oldImage?: Image;
  readonly newImage?: Image;
}

/** A deleted key whose `key.deleted` waits for its actor (the key's tombstone: who deleted it, when). */
export interface KeyDeleted {
  readonly source_id: string;
  /** The key as it was (the record's old image). */
  readonly key: ApiKeyRecord;
}

/** What one record makes. */
export interface ChangeOutcome {
  readonly events: SourcedEvent[];
  /** Deleted keys: `key.deleted` once their actor is read ({@link keyDeletedEvent}). */
  readonly deletions: KeyDeleted[];
  /**
   * Due items to store. `session.expired` ones only for an org with an active endpoint subscribing
   * to it: the worker checks that ({@link needsSubscriber}).
   */
  readonly due: DueItem[];
}

/** A key's `key.expiring` comes this long before its `expires_at`. */
export const KEY_EXPIRING_NOTICE_MS = 7 * 24 * 60 * 60 * 1000;

/** The prefix of the counters table's rate-limit notices (the stream's filter passes only these). */
const NOTICE_PREFIX = 'notice#';

const NOTHING: ChangeOutcome = { events: [], deletions: [], due: [] };

/** The events and due items of one stream record. @throws on an image the rules cannot read (a bug upstream) */
export function changeOutcome(change: StreamChange): ChangeOutcome {
  switch (change.table) {
    case 'tokens':
      return tokenChange(change);
    case 'keys':
      return keyChange(change);
    case 'counters':
      return counterChange(change);
  }
}

/** Whether a due item is stored only for an org with an endpoint that subscribes to its kind. */
export function needsSubscriber(item: DueItem): boolean {
  return item.kind === 'session.expired';
}

/**
 * `session.consumed` and `session.revoked`: a token leaving `active`. A new token is due to expire
 * at its `expires_at`. Anything else (a play-pass exchange counted, a TTL removal) is nothing.
 */
function tokenChange({ eventName, eventID, oldImage, newImage }: StreamChange): ChangeOutcome {
  if (eventName === 'INSERT' && newImage) {
    const token = tokenRecordOf(newImage);
    if (token.status !== 'active') return NOTHING;
    const item: DueItem = { kind: 'session.expired', org_id: token.org_id, ref: token.token, due_at: token.expires_at };
    return { ...NOTHING, due: [item] };
  }
  if (eventName !== 'MODIFY' || !oldImage || !newImage || oldImage.status !== 'active') return NOTHING;
  // Read as the token store reads it (metadata stored as text, absent fields null).
  const token = tokenRecordOf(newImage);
  const sourced = (event: SourcedEvent['event']): ChangeOutcome => ({
    ...NOTHING,
    events: [{ org_id: token.org_id, source_id: eventID, event }],
  });
  if (token.status === 'consumed') return sourced(sessionConsumed(token));
  if (token.status === 'revoked') return sourced(sessionRevoked(token));
  return NOTHING;
}

/** A key item (its id items, `id#<id>`, are the keys' lookups and tombstones, not keys). */
function isKeyItem(image: Image | undefined): boolean {
  return typeof image?.key_hash === 'string' && !image.key_hash.startsWith('id#');
}

/**
 * Key items: created (not by a rotation: the retired key's change says it), rotated (the retired
 * key, `rotated_to` appearing), updated (`updated_at` changed otherwise: revocation, reactivation,
 * settings), deleted (the worker reads the actor). A change of only `last_used_at` or the tier copy
 * is nobody's change: nothing. A change with no `updated_by` was made by no admin (the seed): nothing.
 * A key whose `expires_at` is set or changed is due for `key.expiring`.
 */
function keyChange({ eventName, eventID, atMs, oldImage, newImage }: StreamChange): ChangeOutcome {
  if (eventName === 'REMOVE') {
    if (!isKeyItem(oldImage)) return NOTHING;
    return { ...NOTHING, deletions: [{ source_id: eventID, key: oldImage as unknown as ApiKeyRecord }] };
  }
  if (!isKeyItem(newImage)) return NOTHING;
  const key = newImage as unknown as ApiKeyRecord;
  const before = (oldImage ?? {}) as Partial<ApiKeyRecord>;
  const due = expiringDue(key, before, eventName, atMs);
  const actor = key.updated_by;
  const type =
    eventName === 'INSERT'
      ? key.rotated_from == null
        ? 'key.created'
        : undefined
      : before.rotated_to == null && key.rotated_to != null
        ? 'key.rotated'
        : before.updated_at !== key.updated_at
          ? 'key.updated'
          : undefined;
  if (!type || !actor) return { ...NOTHING, due };
  const at = Date.parse(type === 'key.created' ? key.created_at : key.updated_at);
  return { ...NOTHING, due, events: [{ org_id: key.org_id, source_id: eventID, event: keyChanged(type, key, actor, at) }] };
}

/**
 * The `key.expiring` due item of a key whose `expires_at` was set or changed: 7 days before it, or
 * at the change when that is already past. A retired key's expiry is its rotation's grace period,
 * which `key.rotated` announced: no item.
 */
function expiringDue(key: ApiKeyRecord, before: Partial<ApiKeyRecord>, eventName: StreamChange['eventName'], atMs: number): DueItem[] {
  if (key.expires_at == null || key.rotated_to != null) return [];
  if (eventName === 'MODIFY' && before.expires_at === key.expires_at) return [];
  const dueMs = Math.max(Date.parse(key.expires_at) - KEY_EXPIRING_NOTICE_MS, atMs);
  return [{ kind: 'key.expiring', org_id: key.org_id, ref: String(key.id), due_at: new Date(dueMs).toISOString() }];
}

/** `key.expiring` is still due for the key as it is now: it still expires when the item was made for, and works until then. */
export function stillExpiring(key: ApiKeyRecord | undefined, item: DueItem): key is ApiKeyRecord {
  if (!key || key.expires_at == null || !key.is_active || key.rotated_to != null) return false;
  const expires = Date.parse(key.expires_at);
  const due = Date.parse(item.due_at);
  // Made for this expiry: 7 days before it, or (a change within the 7 days) between then and the expiry.
  return expires - KEY_EXPIRING_NOTICE_MS <= due && due < expires;
}

/** A rate-limit notice (`notice#<key_id>#<minute|day>#<window start>`), put once per key and window: `key.rate_limited`. */
function counterChange({ eventName, eventID, newImage }: StreamChange): ChangeOutcome {
  const pk = newImage?.pk;
  if (eventName !== 'INSERT' || typeof pk !== 'string' || !pk.startsWith(NOTICE_PREFIX)) return NOTHING;
  const notice = newImage as unknown as RateLimitNoticeItem;
  const [, , window, start] = pk.split('#');
  if (window !== 'minute' && window !== 'day') throw new Error(`a rate-limit notice names no window: ${pk}`);
  const rateWindow = { name: window, limit: notice.limit, startMs: Date.parse(start!), endMs: Date.parse(notice.resets_at) } as const;
  const event = keyRateLimited(notice.key_id, rateWindow, Date.parse(notice.at));
  return { ...NOTHING, events: [{ org_id: notice.org_id, source_id: eventID, event }] };
}

/** A notice item's attributes (shared/keys/counter-store.ts writes them). */
interface RateLimitNoticeItem {
  readonly org_id: number;
  readonly key_id: number;
  readonly limit: number;
  readonly resets_at: string;
  /** When the refusal that learned of the exhausted window was answered. */
  readonly at: string;
}

/** `key.deleted` of a deleted key, with who deleted it and when (its tombstone). */
export function keyDeletedEvent(deleted: KeyDeleted, deletion: { deleted_by: string; deleted_at: string }): SourcedEvent {
  const event = keyChanged('key.deleted', deleted.key, deletion.deleted_by, Date.parse(deletion.deleted_at));
  return { org_id: deleted.key.org_id, source_id: deleted.source_id, event };
}
