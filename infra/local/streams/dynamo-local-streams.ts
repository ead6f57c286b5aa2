/**
 * The streams DynamoDB Local keeps, read as Lambda's event source mapping reads DynamoDB's: per
 * stream-enabled table, its shards (DescribeStream), each from LATEST when the reader starts (a
 * shard found later: from its start, TRIM_HORIZON), then following each shard's iterator
 * (GetRecords). A closed shard is read to its end; its children are found by the next describe.
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
  /** Shard id -> its next iterator (null: read to its end). */
  readonly iterators: Map<string, string | null>;
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
        if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream (made before streams? delete the local data folder)`);
        const followed: Followed = { streamArn: Table.LatestStreamArn, iterators: new Map() };
        reader.followed.set(tableName, followed);
        await reader.discover(followed, 'LATEST');
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
      await this.discover(followed, 'TRIM_HORIZON');
      const records: DynamoDBRecord[] = [];
      for (const [shard, iterator] of followed.iterators) {
        if (iterator === null) continue;
        const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        followed.iterators.set(shard, page.NextShardIterator ?? null);
        records.push(...(page.Records ?? []).map((r) => lambdaRecord(r, followed.streamArn)));
      }
      if (records.length > 0) out.push({ tableName, streamArn: followed.streamArn, records });
    }
    return out;
  }

  close(): void {
    this.streams.destroy();
  }

  /** Take up the shards not followed yet, from `from`. */
  private async discover(followed: Followed, from: 'LATEST' | 'TRIM_HORIZON'): Promise<void> {
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: followed.streamArn, ExclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || followed.iterators.has(shard.ShardId)) continue;
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({ StreamArn: followed.streamArn, ShardId: shard.ShardId, ShardIteratorType: from }),
        );
        followed.iterators.set(shard.ShardId, ShardIterator ?? null);
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
