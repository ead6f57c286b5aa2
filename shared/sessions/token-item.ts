/**
 * THE decoder of the tokens table's items: what the token store reads (`token-store.ts`) and what
 * the webhook events are built from (a stream record's image, `shared/webhooks/stream-events.ts`)
 * go through this one function, so an event says of a token exactly what validate-session says.
 */
import { TTL_ATTRIBUTE } from '../tables.js';
import type { TokenRecord } from './model.js';

/**
 * A stored token item as the domain's record, without the storage-only attributes. Metadata is kept
 * as JSON text (`DynamoTokenStore.put`); an item written with a map reads as it is. An absent
 * nullable field (`game_id`, `stream_id`, `external_ref`, `metadata`, `player_ref`) reads as null.
 * @throws on metadata text that is not the JSON of an object (an item no store wrote)
 */
export function tokenRecordOf(item: Readonly<Record<string, unknown>>): TokenRecord {
  // `org_day` keyed a report index on items written before the report read audit records;
  // `exchange_attempts` counted play-cookie exchanges by session id, which no request makes.
  const { [TTL_ATTRIBUTE]: _ttl, revoked_by: _by, org_day: _day, org_shard: _shard, exchange_attempts: _attempts, ...record } = item;
  return {
    ...record,
    game_id: record.game_id ?? null,
    stream_id: record.stream_id ?? null,
    external_ref: record.external_ref ?? null,
    // Stored only when given (`DynamoTokenStore.put`): an unbound token has no such attribute.
    player_ref: record.player_ref ?? null,
    metadata: metadataOf(record.metadata),
  } as TokenRecord;
}

/** The stored metadata as the object given: parsed from its text, or the map as it is. */
function metadataOf(stored: unknown): Record<string, unknown> | null {
  if (stored === undefined || stored === null) return null;
  const value: unknown = typeof stored === 'string' ? JSON.parse(stored) : stored;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('stored metadata is not a JSON object');
  return value as Record<string, unknown>;
}
