/**
 * The local streams (infra/local/streams/) on the backend of this tier (dynalite's stand-in, or
 * DynamoDB Local's own streams) hand a batch the worker fails again, after a growing wait, as
 * Lambda does: a worker that fails transiently loses nothing, in order; one that always fails ends
 * with its records in the local failures list (what /dev/webhooks shows and replays), never dropped.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { LocalStreamFailures } from '../../infra/local/stream-failures.js';
import { startStreams, type OnRecords } from '../../infra/local/streams/index.js';
import { startStack, type Stack } from '../support/local-stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ workers: false });
}, 60_000);
afterAll(() => stack?.stop());

/** Short waits: the retries' count is what is under test, not Lambda's pace. */
const RETRIES = { retries: 10, firstDelayMs: 5, maxDelayMs: 20 };

/** Streams that hand the keys table's records to `onRecords`, for the length of `run`. */
async function withStreams(onRecords: OnRecords, failures: LocalStreamFailures, run: () => Promise<void>): Promise<void> {
  const streams = await startStreams({
    backend: stack.dynamoBackend,
    connection: stack.dynamoConnection,
    tableNames: stack.tableNames,
    onRecords,
    failures,
    retries: RETRIES,
    pollIntervalMs: 50,
    log: () => undefined,
  });
  try {
    await run();
    await streams.settle();
  } finally {
    await streams.close();
  }
}

/** Writes `count` key items (the keys table is streamed): their hashes, in write order. */
async function writeKeys(prefix: string, count: number): Promise<string[]> {
  const hashes = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const key_hash of hashes) {
    await stack.services.client.send(new PutCommand({ TableName: stack.tableNames.keys, Item: { key_hash, org_id: 99, id: 0 } }));
  }
  return hashes;
}
const hashesOf = (event: DynamoDBStreamEvent) => event.Records.map((r) => r.dynamodb?.NewImage?.key_hash?.S ?? '');

describe(`local streams, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`, () => {
  test('a worker that fails 4 times, then succeeds: every record read, in order, none kept', async () => {
    const failures = new LocalStreamFailures();
    const read: string[] = [];
    let failing = 4;
    let written: string[] = [];
    await withStreams(
      async (event) => {
        if (failing > 0) {
          failing -= 1;
          // Alternately a partial failure (from the second record) and a thrown error (the whole batch).
          if (failing % 2 === 0) throw new Error('throttled');
          const from = event.Records[Math.min(1, event.Records.length - 1)]!;
          read.push(...hashesOf({ Records: event.Records.slice(0, event.Records.indexOf(from)) }));
          return { batchItemFailures: [{ itemIdentifier: from.dynamodb!.SequenceNumber! }] };
        }
        read.push(...hashesOf(event));
        return { batchItemFailures: [] };
      },
      failures,
      async () => {
        written = await writeKeys('transient', 6);
      },
    );
    expect(failing).toBe(0);
    expect(read).toEqual(written);
    expect(failures.list()).toEqual([]);
  }, 60_000);

  test('a worker that always fails: after 1 + 10 tries its records are in the failures list, with the error', async () => {
    const failures = new LocalStreamFailures();
    let tries = 0;
    let written: string[] = [];
    await withStreams(
      async () => {
        tries += 1;
        throw new Error('the table is gone');
      },
      failures,
      async () => {
        written = await writeKeys('always', 3);
      },
    );
    const kept = failures.list();
    expect(kept.map((k) => k.record.dynamodb?.NewImage?.key_hash?.S)).toEqual(written);
    expect(kept.every((k) => k.kind === 'retries-exhausted' && /the table is gone \(11 tries\)/.test(k.error))).toBe(true);
    // One batch or a few (however the writes were read), each tried 11 times.
    expect(tries % 11).toBe(0);
  }, 60_000);
});
