/**
 * The local run's stand-in for the stream failures queue (infra/queues.ts): a list in this process
 * of the stream records that did not become events, each with why, which a developer sees on
 * `/dev/webhooks` (and in its JSON) and replays into the `webhook-events` worker. Two kinds arrive:
 * - a record the worker's rules cannot read, which the worker keeps itself (its services send it
 *   here in place of SQS: `ServiceOverrides.queues`);
 * - the records of a batch the worker failed on every try, which the local streams keep here once
 *   their retries are spent (`streams/index.ts`), as Lambda's on-failure destination records a
 *   batch it gave up on (in AWS with its place in the stream only; here with the records).
 * Nothing is dropped: the list is this process's memory, kept until replayed or the run stops.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { UnreadableRecord, UnreadableRecords } from '../../shared/webhooks/ports.js';

/** One record kept. */
export interface KeptStreamRecord {
  /** `unreadable-record`: the worker could not read it; `retries-exhausted`: the streams gave up on its batch. */
  readonly kind: UnreadableRecord['kind'] | 'retries-exhausted';
  readonly error: string;
  /** When it was kept (ISO 8601). */
  readonly kept_at: string;
  readonly record: DynamoDBRecord;
}

/** What hands a record to the worker (its handler). */
type Worker = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;

/** What a replay did. */
export interface ReplayOutcome {
  /** Records handed to the worker. */
  readonly replayed: number;
  /** Of them, those kept again (the worker still cannot read them, or it failed): in the list again. */
  readonly kept_again: number;
}

/** See the module comment. */
export class LocalStreamFailures implements UnreadableRecords {
  private readonly kept: KeptStreamRecord[] = [];
  private worker: Worker | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A record the worker could not read (its services reach the list through {@link send}). */
  async keep(kept: UnreadableRecord): Promise<void> {
    // The record the worker was handed: a DynamoDBRecord.
    this.kept.push({ ...kept, record: kept.record as DynamoDBRecord });
  }

  /** The worker's stand-in for SQS's SendMessage (`ServiceOverrides.queues`): the records it could not read. */
  async send(messages: readonly UnreadableRecord[]): Promise<void> {
    for (const message of messages) await this.keep(message);
  }

  /** The records of a batch the streams gave up on, with the worker's last error. */
  giveUp(records: readonly DynamoDBRecord[], error: string): void {
    const kept_at = new Date(this.now()).toISOString();
    this.kept.push(...records.map((record) => ({ kind: 'retries-exhausted' as const, error, kept_at, record })));
  }

  /** What is kept, oldest first. */
  list(): readonly KeptStreamRecord[] {
    return this.kept;
  }

  /** Whether a replay has a worker to hand the records to. */
  replaying(): boolean {
    return this.worker !== undefined;
  }

  /** The worker a replay hands the records to (the local workers set it when they start). */
  setWorker(worker: Worker): void {
    this.worker = worker;
  }

  /**
   * Hand every kept record to the worker again, one record per invocation, in the order kept. A
   * record the worker still cannot read it keeps here again itself; one whose invocation fails is
   * put back with that failure. @throws when no worker runs (the local workers are off)
   */
  async replay(): Promise<ReplayOutcome> {
    const worker = this.worker;
    if (!worker) throw new Error('no webhook-events worker runs in this process');
    const taken = this.kept.splice(0);
    for (const { record } of taken) {
      const error = await worker({ Records: [record] }).then(
        (answer) => (answer && answer.batchItemFailures.length > 0 ? 'the worker failed the record again' : undefined),
        (thrown: unknown) => String(thrown),
      );
      if (error) this.giveUp([record], error);
    }
    return { replayed: taken.length, kept_again: this.kept.length };
  }
}
