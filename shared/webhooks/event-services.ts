/**
 * The event workers' part (`webhook-events`, `webhook-due`): where events go (the fan-out to the
 * orgs' endpoints: deliveries and their queue), the due items, and the reads their rules need (keys
 * and their tombstones, tokens, the orgs' endpoints).
 */
import { keyStore, type ApiKeyRecord, type KeyDeletion } from '../keys/index.js';
import { batchGetMany, whole } from '../platform/dynamo/client.js';
import { env, required } from '../platform/env.js';
import { coreServices, part, queueOverride, storeOptions, type CoreServices } from '../platform/services.js';
import { tokenRecordOf, type TokenRecord } from '../sessions/index.js';
import { tables } from '../tables.js';
import { DynamoDueStore } from './due-store.js';
import { WebhookFanOut } from './fan-out.js';
import type { DueStore, EventSink, UnreadableRecords, WebhookStore } from './ports.js';
import { deliveryQueue, deliveryStore, webhookStore } from './services.js';
import { SqsStreamFailures } from './sqs-stream-failures.js';
import type { StreamedTable } from './stream-events.js';

/** The key reads of the event rules: a key by id (its id item, strongly consistent), and who deleted one. */
export interface KeyReads {
  findInOrg(orgId: number, id: number): Promise<ApiKeyRecord | undefined>;
  deletionOf(orgId: number, id: number): Promise<KeyDeletion | undefined>;
}

/** Tokens read in batches (the due sweep's `session.expired`). */
export interface TokenReads {
  /** The tokens that exist among `tokens` (strongly consistent), in no particular order. */
  getMany(tokens: readonly string[]): Promise<TokenRecord[]>;
}

/** What the event workers need. */
export interface EventServices extends CoreServices {
  readonly sink: EventSink;
  readonly due: DueStore;
  readonly webhooks: Pick<WebhookStore, 'listByOrg'>;
  readonly keys: KeyReads;
  readonly tokens: TokenReads;
  /** The physical names of the streamed tables: a stream record's table is the one its ARN names. */
  readonly streamedTables: Readonly<Record<StreamedTable, string>>;
  /** Where a stream record the rules cannot read is kept. */
  readonly unreadable: UnreadableRecords;
}

/**
 * Tokens by BatchGetItem (100 a call), strongly consistent: the sweep must see a consume made a
 * moment before the expiry (never announce a consumed token as expired). Read as the token store
 * reads its items (`tokenRecordOf`).
 */
export class DynamoTokenReads implements TokenReads {
  constructor(private readonly options: ReturnType<typeof storeOptions>) {}

  async getMany(tokens: readonly string[]): Promise<TokenRecord[]> {
    if (tokens.length === 0) return [];
    const keys = [...new Set(tokens)].map((token) => ({ token }));
    const read = await batchGetMany(this.options.client, this.options.tableName, keys, 4, true);
    return whole(read).map(tokenRecordOf);
  }
}

/**
 * Where the events worker keeps a record it cannot read: the local runner's failures list, or the
 * stream failures queue at `WEBHOOK_STREAM_FAILURES_QUEUE_URL`.
 */
function unreadableRecords(): UnreadableRecords {
  const local = queueOverride('stream-failures');
  if (local) return { keep: (record) => local.send([record] as never[]) };
  return new SqsStreamFailures(required(env(), 'WEBHOOK_STREAM_FAILURES_QUEUE_URL'), process.env.AWS_REGION ?? '');
}

/** The event workers' part of this container's services. */
export const eventServices = /* @__PURE__ */ part((): EventServices => {
  const core = coreServices();
  const webhooks = webhookStore();
  const keys = keyStore();
  const streamedTables = {
    tokens: required(env(), tables.tokens.envVar),
    keys: required(env(), tables.keys.envVar),
    counters: required(env(), tables.counters.envVar),
  };
  return {
    ...core,
    sink: new WebhookFanOut({ webhooks, deliveries: deliveryStore(), queue: deliveryQueue(), clock: core.clock, keys }),
    due: new DynamoDueStore(storeOptions('webhooks')),
    webhooks,
    keys,
    tokens: new DynamoTokenReads(storeOptions('tokens')),
    streamedTables,
    unreadable: unreadableRecords(),
  };
});
