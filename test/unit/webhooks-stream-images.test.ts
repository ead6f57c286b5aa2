/**
 * The `webhook-events` worker on stream records as the tables' streams carry them (DynamoDB's wire
 * format): for any stored token image (each optional field absent, null or present; metadata as
 * the stored JSON text or a legacy map, of any JSON object within 4,096 bytes, unicode and numbers
 * beyond 2^53 included; external_ref up to 255 characters; bound to a player or not) the `session.consumed` built says what
 * the token store reads, metadata the object given; any key image makes its key event with the key
 * as the key list shows it. A record the rules cannot read is kept with its error, counted, and
 * takes no other record with it; replayed once its cause is gone, it makes its event.
 */
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { LocalStreamFailures } from '../../infra/local/stream-failures.js';
import { generateRawKey, newKeyRecord } from '../../shared/keys/api-keys.js';
import { keyView } from '../../shared/keys/key-views.js';
import type { ApiKeyRecord } from '../../shared/keys/model.js';
import { METRIC } from '../../shared/platform/observability.js';
import type { SourcedEvent } from '../../shared/webhooks/delivery-model.js';
import type { UnreadableRecords } from '../../shared/webhooks/ports.js';
import { webhookEventsHandler, type EventsDeps } from '../../shared/webhooks/workers/webhook-events.js';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const TABLES = { tokens: 'tokens-t', keys: 'keys-t', counters: 'counters-t' };
const METADATA_MAX_BYTES = 4_096;

/** A value in DynamoDB's wire format, as a stream record carries it. */
function wire(value: unknown): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(wire) };
  return { M: image(value as Record<string, unknown>) };
}
const image = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).flatMap(([name, value]) => (value === undefined ? [] : [[name, wire(value)]])));

let sequence = 0;
/** A stream record of `table`, as Lambda hands it. */
function record(
  table: keyof typeof TABLES,
  eventName: 'INSERT' | 'MODIFY',
  newItem: Record<string, unknown>,
  oldItem?: Record<string, unknown>,
): DynamoDBRecord {
  sequence += 1;
  return {
    eventID: `ev-${sequence}`,
    eventName,
    eventSourceARN: `arn:aws:dynamodb:eu-west-1:123456789012:table/${TABLES[table]}/stream/2026-11-28T00:00:00.000`,
    dynamodb: {
      ApproximateCreationDateTime: NOW / 1000,
      NewImage: image(newItem) as never,
      ...(oldItem ? { OldImage: image(oldItem) as never } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
    },
  };
}

/** The worker on in-memory ports: what it published, and what it kept. */
function worker(unreadable: UnreadableRecords = new LocalStreamFailures(() => NOW)) {
  const published: SourcedEvent[] = [];
  /** Changeable: a test may name another table (a configuration that does not know a stream yet). */
  const streamedTables = { ...TABLES };
  const deps: EventsDeps = {
    sink: { publish: async (events) => void published.push(...events) },
    due: {
      add: async () => undefined,
      dueIn: async () => [],
      done: async () => undefined,
      watermark: async () => undefined,
      advanceWatermark: async () => undefined,
    },
    webhooks: { listByOrg: async () => [] },
    keys: { findInOrg: async () => undefined, deletionOf: async () => undefined },
    streamedTables,
    unreadable,
    clock: { now: () => NOW },
  };
  return { deps, published, streamedTables, handle: webhookEventsHandler(() => deps) };
}

// --- Arbitrary stored tokens

/** Absent, null, or a value. */
const optional = <T>(value: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), fc.constant(null), value);
const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength });
/** JSON values, with numbers beyond 2^53 (and tiny ones) among them. */
const jsonLeaf = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).map(Number),
  fc.constantFrom(5e-324, 1e300, -(2 ** 60)),
  text(40),
);
const metadata = fc
  .dictionary(text(12), jsonLeaf, { maxKeys: 8 })
  .filter((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES);

/** A consumed token as the table stores it, and the metadata given at its mint (undefined: none). */
const storedToken = fc
  .record({
    token: fc.uuid(),
    org_id: fc.integer({ min: 1, max: 1_000_000 }),
    key_id: fc.integer({ min: 1, max: 1_000_000 }),
    game_id: optional(fc.integer({ min: 1, max: 2 ** 31 })),
    stream_id: optional(fc.integer({ min: 1, max: 2 ** 31 })),
    external_ref: optional(fc.oneof(text(255), fc.constant('r'.repeat(255)))),
    metadata: optional(fc.oneof(metadata, fc.constant({}))),
    legacyMap: fc.boolean(),
    player_uuid: optional(text(255)),
    // Bound or not; a bound token is consumed with its player (the store's condition), any stored text read as it is.
    player_ref: optional(fc.oneof(fc.stringMatching(/^[\x20-\x7e]{1,128}$/), text(128))),
    byItsPlayer: fc.boolean(),
    session_id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  })
  .map(({ legacyMap, metadata, byItsPlayer, ...token }) => {
    const stored = {
      ...token,
      ...(byItsPlayer && typeof token.player_ref === 'string' ? { player_uuid: token.player_ref } : {}),
      // As DynamoTokenStore.put writes it (JSON text); a legacy item holds a map.
      metadata: metadata === undefined || metadata === null ? metadata : legacyMap ? metadata : JSON.stringify(metadata),
      status: 'consumed',
      created_at: iso(NOW - 60_000),
      expires_at: iso(NOW + 3_600_000),
      consumed_at: iso(NOW),
      org_shard: `${token.org_id}#3`,
      ttl: NOW / 1000 + 86_400,
    };
    return { stored, given: metadata };
  });

describe('session.consumed from any stored token image', () => {
  test('the event says what the token store reads: absent fields null, metadata the object given', async () => {
    await fc.assert(
      fc.asyncProperty(storedToken, async ({ stored, given }) => {
        const { handle, published } = worker();
        const active = { ...stored, status: 'active', consumed_at: undefined, session_id: undefined, player_uuid: undefined };
        const answer = await handle({ Records: [record('tokens', 'MODIFY', stored, active)] });
        expect(answer).toEqual({ batchItemFailures: [] });
        expect(published).toEqual([
          {
            org_id: stored.org_id,
            source_id: expect.any(String),
            event: {
              type: 'session.consumed',
              timestamp: iso(NOW),
              data: {
                token: stored.token,
                session_id: stored.session_id,
                org_id: stored.org_id,
                game_id: stored.game_id ?? null,
                stream_id: stored.stream_id ?? null,
                external_ref: stored.external_ref ?? null,
                // The object given, as JSON carries it (what the partner's parser reads).
                metadata: given == null ? null : JSON.parse(JSON.stringify(given)),
                player_uuid: stored.player_uuid ?? null,
                player_ref: stored.player_ref ?? null,
                key_id: stored.key_id,
                consumed_at: iso(NOW),
              },
            },
          },
        ]);
      }),
      { numRuns: 300 },
    );
  });

  test('a new token of any shape: its session.expired due item (its metadata is not read for it)', async () => {
    await fc.assert(
      fc.asyncProperty(storedToken, async ({ stored }) => {
        const { handle, deps } = worker();
        const added: unknown[] = [];
        deps.due.add = async (items) => void added.push(...items);
        deps.webhooks.listByOrg = async () => [{ is_active: true, events: ['*'] } as never];
        const active = { ...stored, status: 'active', consumed_at: undefined, session_id: undefined, player_uuid: undefined };
        expect(await handle({ Records: [record('tokens', 'INSERT', active)] })).toEqual({ batchItemFailures: [] });
        expect(added).toEqual([{ kind: 'session.expired', org_id: stored.org_id, ref: stored.token, due_at: stored.expires_at }]);
      }),
      { numRuns: 50 },
    );
  });
});

describe('key events from any stored key image', () => {
  const storedKey = fc
    .record({
      name: fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }),
      description: optional(text(500)),
      expires_at: optional(fc.constant(iso(NOW + 30 * 86_400_000))),
      rotated_from: fc.constant(undefined),
      tier_version: optional(fc.integer({ min: 0, max: 99 })),
    })
    .map(({ name, description, expires_at, tier_version }) => {
      const key: Record<string, unknown> = {
        ...newKeyRecord(generateRawKey(), 42, { org_id: 3, tier: 'business' }, { name }, NOW),
        updated_by: 'admin-sub',
      };
      // Absent (an item written before the field existed), null, or set.
      for (const [field, value] of Object.entries({ description, expires_at, org_tier_version: tier_version })) {
        if (value === undefined) delete key[field];
        else key[field] = value;
      }
      return key;
    });

  test('key.created with the key as the key list shows it (the key store reads its items as they are)', async () => {
    await fc.assert(
      fc.asyncProperty(storedKey, async (key) => {
        const { handle, published } = worker();
        expect(await handle({ Records: [record('keys', 'INSERT', key)] })).toEqual({ batchItemFailures: [] });
        expect(published.map((p) => p.event)).toEqual([
          { type: 'key.created', timestamp: iso(NOW), data: { ...keyView(key as unknown as ApiKeyRecord), actor: 'admin-sub' } },
        ]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('a record the rules cannot read', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const consumed = (n: number, extra: Record<string, unknown> = {}) => {
    const token = {
      token: `00000000-0000-4000-8000-00000000000${n}`,
      org_id: 3,
      key_id: 42,
      game_id: 301,
      stream_id: null,
      external_ref: null,
      metadata: null,
      status: 'consumed',
      created_at: iso(NOW - 60_000),
      expires_at: iso(NOW + 3_600_000),
      session_id: 100 + n,
      consumed_at: iso(NOW),
      player_uuid: null,
      ...extra,
    };
    return record('tokens', 'MODIFY', token, { ...token, status: 'active' });
  };
  const tokensOf = (published: SourcedEvent[]) => published.map((p) => (p.event.data as { token: string }).token);

  test('between good ones: they all make their events; it is kept with its error and counted; the batch moves on', async () => {
    const failures = new LocalStreamFailures(() => NOW);
    const { handle, published } = worker(failures);
    const poison = consumed(2, { metadata: '{"unterminated' });
    const batch = [consumed(1), poison, consumed(3), consumed(4)];
    expect(await handle({ Records: batch })).toEqual({ batchItemFailures: [] });
    expect(tokensOf(published)).toEqual([1, 3, 4].map((n) => `00000000-0000-4000-8000-00000000000${n}`));
    expect(failures.list()).toEqual([
      { kind: 'unreadable-record', error: expect.stringMatching(/JSON/), kept_at: iso(NOW), record: poison },
    ]);
    const metrics = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => METRIC.webhookRecordsUnreadable in l);
    expect(metrics.map((l) => l[METRIC.webhookRecordsUnreadable])).toEqual([1]);
  });

  test('a record of a table the worker does not know yet: kept; replayed once the cause is gone, it makes its event', async () => {
    const failures = new LocalStreamFailures(() => NOW);
    const { handle, published, streamedTables } = worker(failures);
    failures.setWorker(handle);
    // The worker's configuration names another tokens table (a deploy in the wrong order).
    streamedTables.tokens = 'tokens-old';
    const lost = consumed(5);
    expect(await handle({ Records: [lost] })).toEqual({ batchItemFailures: [] });
    expect(failures.list()).toEqual([expect.objectContaining({ error: expect.stringMatching(/no streamed table/), record: lost })]);
    expect(published).toEqual([]);
    // Replayed while the cause stays: kept again, not lost.
    expect(await failures.replay()).toEqual({ replayed: 1, kept_again: 1 });
    streamedTables.tokens = TABLES.tokens;
    expect(await failures.replay()).toEqual({ replayed: 1, kept_again: 0 });
    expect(tokensOf(published)).toEqual(['00000000-0000-4000-8000-000000000005']);
    expect(failures.list()).toEqual([]);
  });

  test('when it cannot be kept, the batch fails from it (the stream hands it again); what came before is handled', async () => {
    const { handle, published } = worker({
      keep: async () => {
        throw new Error('SQS answered 500');
      },
    });
    const poison = consumed(7, { metadata: 'not json' });
    const answer = await handle({ Records: [consumed(6), poison, consumed(8)] });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: poison.dynamodb!.SequenceNumber }] });
    // The readable ones were published; handed again from the poison, the one after it is published again with the same source.
    expect(tokensOf(published)).toEqual(['00000000-0000-4000-8000-000000000006', '00000000-0000-4000-8000-000000000008']);
  });

  test('a failure of the writes fails the batch from its first record: nothing is kept, nothing counted', async () => {
    const failures = new LocalStreamFailures(() => NOW);
    const { handle, deps } = worker(failures);
    deps.sink.publish = async () => {
      throw new Error('throttled');
    };
    const batch = [consumed(1), consumed(2, { metadata: 'not json' })];
    expect(await handle({ Records: batch })).toEqual({ batchItemFailures: [{ itemIdentifier: batch[0]!.dynamodb!.SequenceNumber }] });
    expect(failures.list()).toEqual([]);
    expect(lines.filter((l) => l.includes(METRIC.webhookRecordsUnreadable))).toEqual([]);
  });
});
