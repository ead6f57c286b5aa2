/**
 * The `webhook-events` worker: reads the streams of the tables whose changes are events (tokens,
 * keys, and the counters' rate-limit notices), turns each record into its event, and hands the
 * events to their organizations' endpoints (`EventSink`); a new token of an org that wants
 * `session.expired`, and a key with an `expires_at`, get a due item (`DueStore`).
 */
import type { WorkerDefinition } from '../../platform/worker.js';

export const webhookEventsWorker = {
  function: 'webhook-events',
  summary: 'Turns token, key and rate-limit changes (DynamoDB Streams) into webhook deliveries.',
  trigger: { kind: 'stream', tables: ['tokens', 'keys', 'counters'], keyPrefix: { counters: 'notice#' } },
  data: {
    catalog: ['Query', 'GetItem'],
    keys: ['GetItem'],
    webhooks: ['PutItem'],
  },
  sendsTo: ['webhook-deliveries'],
  parts: ['webhookEvents'],
  timeoutSeconds: 60,
} as const satisfies WorkerDefinition;
