/**
 * The floors of the two busiest operations: their DynamoDB calls issued directly, in the same
 * stages, through the service's own store adapters on the raw client, with no HTTP front, no
 * handler and no validation. What an operation costs beyond its floor is the service's overhead;
 * what the floor costs beyond one GetItem is the price of the calls themselves on this machine.
 */
import { randomUUID } from 'node:crypto';
import { isoTime } from '../../shared/platform/time.js';
import type { TokenRecord } from '../../shared/sessions/model.js';
import { counterSlot } from '../../shared/keys/rate-limit.js';
import { localTableNames } from '../../infra/local/dynamo.js';
import { DynamoAuditStore } from '../../shared/audit/audit-store.js';
import { DynamoCounterStore } from '../../shared/keys/counter-store.js';
import { DynamoKeyStore } from '../../shared/keys/key-store.js';
import { DynamoTokenStore } from '../../shared/sessions/token-store.js';
import type { BenchStack } from './harness.js';
import { CREATE_BODY, TokenPool } from './operations.js';

/** Something timed in the latency rounds: `prepare` (not timed) returns the work to time. */
export interface Timed {
  readonly name: string;
  prepare(): Promise<() => Promise<unknown>>;
}

/** `create-session` and `consume-session` without the service: their calls only. */
export function floors(stack: BenchStack): Timed[] {
  const client = stack.raw;
  const keys = new DynamoKeyStore({ client, tableName: localTableNames.keys });
  const counters = new DynamoCounterStore({ client, tableName: localTableNames.counters });
  const tokens = new DynamoTokenStore({ client, tableName: localTableNames.tokens });
  const audit = new DynamoAuditStore({ client, tableName: localTableNames.audit });
  const key = stack.keyRecord;
  const pool = new TokenPool(stack);
  let sessionId = 9_000_000_000;

  const createCalls = async () => {
    // Stage 1: the key (the game is cached on the warm path). Stage 2: both windows, the token, the audit record.
    const found = await keys.getByHash(key.key_hash);
    if (!found) throw new Error('the bench key is gone');
    const now = Date.now();
    const token: TokenRecord = {
      token: randomUUID(),
      org_id: key.org_id,
      key_id: key.id,
      game_id: CREATE_BODY.game_id,
      stream_id: null,
      external_ref: CREATE_BODY.external_ref,
      metadata: CREATE_BODY.metadata,
      player_ref: null,
      status: 'active',
      created_at: isoTime(now),
      expires_at: isoTime(now + 86_400_000),
    };
    const ttl = Math.floor(now / 1000) + 8 * 86_400;
    await Promise.all([
      counters.count(counterSlot(found, now, 0, 1)),
      tokens.put(token, ttl),
      audit.put(
        {
          org_id: key.org_id,
          at: isoTime(now),
          request_id: randomUUID(),
          action: 'create-session',
          status: 200,
          key_id: key.id,
          key_prefix: key.key_prefix,
          actor: null,
          game_id: token.game_id,
          stream_id: null,
          token_prefix: token.token.slice(0, 8),
          source_ip: '127.0.0.1',
          user_agent: 'bench',
        },
        ttl,
      ),
    ]);
  };

  return [
    { name: 'floor_create_session', prepare: async () => createCalls },
    {
      name: 'floor_consume_session',
      prepare: async () => {
        const token = await pool.take();
        return () => tokens.consume(token, isoTime(Date.now()), sessionId++, 'p-1');
      },
    },
  ];
}
