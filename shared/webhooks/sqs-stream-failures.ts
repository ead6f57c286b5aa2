/**
 * The SQS adapter of {@link UnreadableRecords}: each record kept is one message on the stream
 * failures queue (infra/queues.ts), beside the stream triggers' own messages there (their batch
 * info), which its `kind` tells apart. On-call reads and replays them (docs/runbook.md#webhook-records-unreadable).
 */
import type { UnreadableRecord, UnreadableRecords } from './ports.js';
import { SqsQueue } from './sqs-queue.js';

/** SQS's largest message body. */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** An error's message is kept to this many characters (what it says first is what it is). */
const MAX_ERROR_CHARS = 2_000;

/**
 * The message body of a kept record: the record whole when it fits SQS's 256 KB, else without its
 * images (an item near DynamoDB's 400 KB, twice in a MODIFY) and marked so: its keys, event id and
 * sequence number still say which item and which change, to read from the table.
 */
export function unreadableMessageBody(kept: UnreadableRecord): string {
  const bounded = { ...kept, error: kept.error.slice(0, MAX_ERROR_CHARS) };
  const whole = JSON.stringify(bounded);
  if (Buffer.byteLength(whole) <= MAX_MESSAGE_BYTES) return whole;
  const { NewImage: _new, OldImage: _old, ...change } = kept.record.dynamodb ?? {};
  return JSON.stringify({ ...bounded, images_omitted: true, record: { ...kept.record, dynamodb: change } });
}

/** See the module comment. */
export class SqsStreamFailures implements UnreadableRecords {
  private readonly sqs: SqsQueue;

  constructor(
    private readonly queueUrl: string,
    region: string,
  ) {
    this.sqs = new SqsQueue(queueUrl, region);
  }

  async keep(record: UnreadableRecord): Promise<void> {
    await this.sqs.post('SendMessage', JSON.stringify({ QueueUrl: this.queueUrl, MessageBody: unreadableMessageBody(record) }));
  }
}
