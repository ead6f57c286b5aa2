/**
 * The `webhook-events` worker: reads the streams of the tables whose changes are events (tokens,
 * keys, and the counters' rate-limit notices), turns each record into its event, and hands the
 * events to their organizations' endpoints (`EventSink`); a new token of an org that wants
 * `session.expired`, and a key with an `expires_at`, get a due item (`DueStore`).
 */
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger, METRIC, writeWorkerMetrics } from '../../platform/observability.js';
import type { WorkerDefinition } from '../../platform/worker.js';
import type { DueItem } from '../delivery-model.js';
import { eventServices, type EventServices } from '../event-services.js';
import { admitsAnySession } from '../endpoint-filter.js';
import { subscribes } from '../events.js';
import {
  changeOutcome,
  keyDeletedEvent,
  needsSubscriber,
  type ChangeOutcome,
  type Image,
  type StreamChange,
  type StreamedTable,
} from '../stream-events.js';

export const webhookEventsWorker = {
  function: 'webhook-events',
  summary: 'Turns token, key and rate-limit changes (DynamoDB Streams) into webhook deliveries.',
  trigger: { kind: 'stream', tables: ['tokens', 'keys', 'counters'], keyPrefix: { counters: 'notice#' } },
  data: {
    catalog: ['Query', 'GetItem'],
    keys: ['GetItem'],
    webhooks: ['PutItem'],
  },
  // The stream failures queue: where a record the rules cannot read is kept (`UnreadableRecords`).
  sendsTo: ['webhook-deliveries', 'stream-failures'],
  parts: ['webhookEvents'],
  timeoutSeconds: 60,
} as const satisfies WorkerDefinition;

/**
 * A stream record's image, unmarshalled as the document client does (numbers as numbers, sets as
 * arrays); the stream's wire format is DynamoDB's.
 */
function unmarshall(image: Record<string, AttributeValue> | undefined): Image | undefined {
  return image && Object.fromEntries(Object.entries(image).map(([name, value]) => [name, valueOf(value)]));
}

function valueOf(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.M !== undefined) return unmarshall(value.M);
  if (value.L !== undefined) return value.L.map(valueOf);
  if (value.SS !== undefined) return value.SS;
  if (value.NS !== undefined) return value.NS.map(Number);
  if (value.B !== undefined) return value.B;
  if (value.BS !== undefined) return value.BS;
  throw new Error(`an attribute value of no known type: ${JSON.stringify(value)}`);
}

/** The table a record comes from: the one its stream ARN (`…:table/<name>/stream/<label>`) names. */
function streamedTableOf(arn: string | undefined, names: Readonly<Record<StreamedTable, string>>): StreamedTable {
  const name = /:table\/([^/]+)\/stream\//.exec(arn ?? '')?.[1];
  const table = (Object.keys(names) as StreamedTable[]).find((t) => names[t] === name);
  if (!table) throw new Error(`a stream record of no streamed table: ${arn}`);
  return table;
}

/** A record as the rules read it. */
function changeOf(record: DynamoDBRecord, names: Readonly<Record<StreamedTable, string>>): StreamChange {
  const { eventName, eventID, dynamodb } = record;
  if (!eventName || !eventID || !dynamodb) throw new Error('a stream record without its name, id or change');
  return {
    table: streamedTableOf(record.eventSourceARN, names),
    eventName,
    eventID,
    // Seconds in the record; a record without it is read at once.
    atMs: dynamodb.ApproximateCreationDateTime === undefined ? Date.now() : dynamodb.ApproximateCreationDateTime * 1000,
    oldImage: unmarshall(dynamodb.OldImage),
    newImage: unmarshall(dynamodb.NewImage),
  };
}

/** The services one stream batch runs on. */
export type EventsDeps = Pick<EventServices, 'sink' | 'due' | 'webhooks' | 'keys' | 'streamedTables' | 'unreadable' | 'clock'>;

/** A record of the batch, read (what it makes) or not (why). */
type Read = { readonly index: number; readonly outcome: ChangeOutcome } | { readonly index: number; readonly error: Error };

/**
 * The handler of a stream batch. Each record is read on its own (`stream-events.ts`): what the
 * readable ones make is handled together (the actors of deleted keys read from their tombstones,
 * the orgs' endpoints read once per org, the events published and the due items stored), then each
 * record the rules cannot read (reading it again fails again) is kept (`UnreadableRecords`),
 * counted and logged, and the batch moves on: no record takes another with it
 * (docs/decisions.md#unreadable-stream-records).
 *
 * A failure of the reads or writes fails the batch from its first record (partial batch response:
 * nothing of it is known stored), and a record that could not be kept fails it from that record:
 * either is safe to read again (a record makes the same deliveries, by its `eventID`, and the
 * same due items; a kept record is not kept twice, as the records before it are not handed again).
 */
export function webhookEventsHandler(deps: () => EventsDeps): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return async (event) => {
    const services = deps();
    const reads: Read[] = event.Records.map((record, index) => {
      try {
        return { index, outcome: changeOutcome(changeOf(record, services.streamedTables)) };
      } catch (thrown) {
        return { index, error: thrown instanceof Error ? thrown : new Error(String(thrown)) };
      }
    });
    const failedAt = await handleAll(services, event.Records, reads);
    if (failedAt === undefined) return { batchItemFailures: [] };
    return { batchItemFailures: [{ itemIdentifier: event.Records[failedAt]!.dynamodb?.SequenceNumber ?? '' }] };
  };
}

/** Handle the readable records, then keep the others; the index of the first record to hand again, if any. */
async function handleAll(services: EventsDeps, records: readonly DynamoDBRecord[], reads: readonly Read[]): Promise<number | undefined> {
  if (records.length === 0) return undefined;
  try {
    await handle(
      services,
      reads.flatMap((r) => ('outcome' in r ? [r.outcome] : [])),
    );
  } catch (error) {
    logger.error('a stream batch failed', { error: error as Error });
    return 0;
  }
  let kept = 0;
  let failedAt: number | undefined;
  for (const read of reads) {
    if (!('error' in read)) continue;
    const record = records[read.index]!;
    try {
      const at = new Date(services.clock.now()).toISOString();
      await services.unreadable.keep({ kind: 'unreadable-record', error: read.error.message, kept_at: at, record });
    } catch (error) {
      logger.error('an unreadable stream record could not be kept', { error: error as Error, eventID: record.eventID });
      failedAt = read.index;
      break;
    }
    kept += 1;
    logger.error('a stream record could not be read: kept on the stream failures queue', { error: read.error, eventID: record.eventID });
  }
  if (kept > 0) writeWorkerMetrics({ [METRIC.webhookRecordsUnreadable]: kept });
  return failedAt;
}

/** Publish what the records made: deleted keys' events once their actors are read; due items of the orgs that want them. */
async function handle(services: EventsDeps, outcomes: readonly ChangeOutcome[]): Promise<void> {
  const deleted = await Promise.all(
    outcomes
      .flatMap((o) => o.deletions)
      .map(async (d) => {
        const deletion = await services.keys.deletionOf(d.key.org_id, d.key.id);
        // No tombstone: not deleted by an admin (a take-back of a key never handed out): nothing to say.
        return deletion && keyDeletedEvent(d, deletion);
      }),
  );
  const events = [...outcomes.flatMap((o) => o.events), ...deleted.filter((e) => e !== undefined)];
  const due = outcomes.flatMap((o) => o.due);
  const wanting = await orgsWanting(services, due);
  await Promise.all([
    services.sink.publish(events),
    services.due.add(due.filter((item) => !needsSubscriber(item) || wanting.has(item.org_id))),
  ]);
}

/**
 * The orgs among those of `due`'s subscriber-bound items with an active endpoint taking
 * `session.expired` whose filter lets some session event through: one read per org.
 */
async function orgsWanting(services: EventsDeps, due: readonly DueItem[]): Promise<Set<number>> {
  const orgs = [...new Set(due.filter(needsSubscriber).map((item) => item.org_id))];
  const wanting = await Promise.all(
    orgs.map(async (org) => {
      const endpoints = await services.webhooks.listByOrg(org);
      return endpoints.some((e) => e.is_active && subscribes(e.events, 'session.expired') && admitsAnySession(e.filter)) ? org : undefined;
    }),
  );
  return new Set(wanting.filter((org) => org !== undefined));
}

/** The `webhook-events` function. */
export const handler = /* @__PURE__ */ webhookEventsHandler(eventServices);
