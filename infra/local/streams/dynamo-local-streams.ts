/**
 * The streams DynamoDB Local keeps, read as Lambda's event source mapping reads DynamoDB's: per
 * stream-enabled table, its shards (DescribeStream), each from what is written after the reader
 * starts (a shard found later: from its start), then following each shard's iterator (GetRecords).
 * A closed shard is read to its end; its children are found by the next describe.
 *
 * Not from a LATEST iterator: DynamoDB Local refuses one that was handed out on a shard before its
 * next record as reading past the shard's oldest record (TrimmedDataAccessException). So a shard is
 * read to its end at the start (those records skipped), and a refused or expired iterator is
 * replaced by one after the last record read.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamsRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { DynamoConnection } from '../dynamo.js';

/** A table's stream being read. */
interface Followed {
  readonly streamArn: string;
  /** Shard id -> its next iterator (null: read to its end), and the sequence number of the last record read. */
  readonly iterators: Map<string, { iterator: string | null; last?: string }>;
}

/** Reads the streams of some tables of a DynamoDB Local. */
export class DynamoLocalStreams {
  private readonly streams: DynamoDBStreamsClient;
  private readonly followed = new Map<string, Followed>();

  private constructor(private readonly connection: DynamoConnection) {
    const { endpoint, region, credentials } = connection;
    this.streams = new DynamoDBStreamsClient({ endpoint, region, credentials });
  }

  /** Start reading the streams of `tableNames` from now on (LATEST). */
  static async start(connection: DynamoConnection, tableNames: readonly string[]): Promise<DynamoLocalStreams> {
    const reader = new DynamoLocalStreams(connection);
    const { endpoint, region, credentials } = connection;
    const tables = new DynamoDBClient({ endpoint, region, credentials });
    try {
      for (const tableName of tableNames) {
        const { Table } = await tables.send(new DescribeTableCommand({ TableName: tableName }));
        if (!Table?.LatestStreamArn)
          throw new Error(`table ${tableName} has no stream (made before streams? delete the local data folder)`);
        const followed: Followed = { streamArn: Table.LatestStreamArn, iterators: new Map() };
        reader.followed.set(tableName, followed);
        await reader.discover(followed, true);
      }
    } finally {
      tables.destroy();
    }
    return reader;
  }

  /** One pass over every shard: the records written since the last pass, per table, in each shard's order. */
  async poll(): Promise<{ tableName: string; streamArn: string; records: DynamoDBRecord[] }[]> {
    const out: { tableName: string; streamArn: string; records: DynamoDBRecord[] }[] = [];
    for (const [tableName, followed] of this.followed) {
      await this.discover(followed, false);
      const records: DynamoDBRecord[] = [];
      for (const [shard, place] of followed.iterators) {
        if (place.iterator === null) continue;
        const page = await this.read(followed.streamArn, shard, place);
        records.push(...page.map((r) => lambdaRecord(r, followed.streamArn)));
      }
      if (records.length > 0) out.push({ tableName, streamArn: followed.streamArn, records });
    }
    return out;
  }

  /** The next page of a shard; a refused or expired iterator is taken again after the last record read. */
  private async read(streamArn: string, shard: string, place: { iterator: string | null; last?: string }): Promise<StreamsRecord[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: place.iterator! }));
        place.iterator = page.NextShardIterator ?? null;
        const records = page.Records ?? [];
        if (records.length > 0) place.last = records[records.length - 1]!.dynamodb?.SequenceNumber;
        return records;
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (attempt > 0 || (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException')) throw error;
        place.iterator = await this.iterator(streamArn, shard, place.last);
      }
    }
  }

  /** An iterator after `last`, or from the shard's start. */
  private async iterator(streamArn: string, shard: string, last: string | undefined): Promise<string | null> {
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard,
        ...(last ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator ?? null;
  }

  close(): void {
    this.streams.destroy();
  }

  /** Take up the shards not followed yet: from their start, or (`skip`: at the reader's start) after what they hold. */
  private async discover(followed: Followed, skip: boolean): Promise<void> {
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: followed.streamArn, ExclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || followed.iterators.has(shard.ShardId)) continue;
        const place = {
          iterator: await this.iterator(followed.streamArn, shard.ShardId, undefined),
          last: undefined as string | undefined,
        };
        followed.iterators.set(shard.ShardId, place);
        if (skip) while (place.iterator !== null && (await this.read(followed.streamArn, shard.ShardId, place)).length > 0);
      }
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
  }
}

/** A Streams API record as Lambda hands it over: its stream's ARN, the creation time in epoch seconds. */
function lambdaRecord(record: StreamsRecord, streamArn: string): DynamoDBRecord {
  const { dynamodb } = record;
  const created = dynamodb?.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(dynamodb as DynamoDBRecord['dynamodb']),
      ApproximateCreationDateTime: created === undefined ? undefined : Math.floor(new Date(created).getTime() / 1000),
    },
  };
}
