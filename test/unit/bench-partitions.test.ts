/**
 * The bench proxy's throughput model (test/bench/proxy/): a partition's bucket refuses past its
 * limit and refills at its rate, and a call is charged to the partitions DynamoDB would charge
 * (the table's partition key value, and each index's partition of the item's index key).
 */
import { describe, expect, test } from '@jest/globals';
import { Partitions } from '../bench/proxy/partitions.js';
import { TokenBucket } from '../bench/proxy/token-bucket.js';
import { charges, type CallContext } from '../bench/proxy/wire-units.js';

const ctx = (): CallContext => ({ indexPartitions: new Map() });

describe('token bucket', () => {
  test('admits up to its capacity, refuses past it, and refills at its rate', () => {
    const b = new TokenBucket(10, 10, 0);
    for (let i = 0; i < 10; i++) {
      expect(b.admits(1, 0)).toBe(true);
      b.take(1, 0);
    }
    expect(b.admits(1, 0)).toBe(false);
    expect(b.admits(1, 50)).toBe(false); // half a unit back after 50 ms
    expect(b.admits(1, 100)).toBe(true);
    expect(b.available(10_000)).toBe(10); // never more than its capacity
  });

  test('a call that cost more than estimated leaves a debt that delays the next one', () => {
    const b = new TokenBucket(1, 1, 0);
    b.take(3, 0);
    expect(b.admits(1, 2_000)).toBe(false);
    expect(b.admits(1, 3_000)).toBe(true);
  });
});

describe('partition charges', () => {
  test('a put writes its table partition and the index partition of its index key', () => {
    const game = { pk: { S: 'game#101' }, sk: { S: 'game' }, gsi1pk: { S: 'ORG#1' }, gsi1sk: { S: 'game#101' } };
    const c = charges('PutItem', { TableName: 'catalog', Item: game }, undefined, ctx());
    expect(c).toEqual([
      { resource: 'catalog', partition: '{"S":"game#101"}', kind: 'write', units: 1 },
      { resource: 'catalog/by_org', partition: '{"S":"ORG#1"}', kind: 'write', units: 1 },
    ]);
  });

  test('a token put writes its own partition only (the tokens table has no index)', () => {
    const c = charges('PutItem', { TableName: 'tokens', Item: { token: { S: 't1' }, status: { S: 'active' } } }, undefined, ctx());
    expect(c).toEqual([{ resource: 'tokens', partition: '{"S":"t1"}', kind: 'write', units: 1 }]);
  });

  test('an item over 1 KB costs a unit per started KB; a strongly consistent read a unit per 4 KB, an eventual one half', () => {
    const big = { pk: { S: 'k' }, blob: { S: 'x'.repeat(2_500) } };
    expect(charges('PutItem', { TableName: 'counters', Item: big }, undefined, ctx())[0]!.units).toBe(3);
    const get = (ConsistentRead: boolean) =>
      charges('GetItem', { TableName: 'counters', Key: { pk: { S: 'k' } }, ConsistentRead }, { Item: big }, ctx())[0]!.units;
    expect(get(true)).toBe(1);
    expect(get(false)).toBe(0.5);
  });

  test('a query is charged to the partition its key condition names, on the index it reads', () => {
    const [c] = charges(
      'Query',
      {
        TableName: 'keys',
        IndexName: 'by_org',
        KeyConditionExpression: '#o = :o AND id > :from',
        ExpressionAttributeNames: { '#o': 'org_id' },
        ExpressionAttributeValues: { ':o': { N: '7' }, ':from': { N: '0' } },
      },
      { Items: [] },
      ctx(),
    );
    expect(c).toEqual({ resource: 'keys/by_org', partition: '{"N":"7"}', kind: 'read', units: 0.5 });
  });

  test('partitions are independent: one hot key value is refused while another still writes', () => {
    const p = new Partitions({ scale: 100, accel: 1 }, 0); // 10 WCU/s per partition
    const put = (id: string) => charges('PutItem', { TableName: 'counters', Item: { pk: { S: id } } }, undefined, ctx());
    for (let i = 0; i < 10; i++) {
      expect(p.refusal(put('hot'), 0)).toBeUndefined();
      p.charge(put('hot'), 0);
    }
    expect(p.refusal(put('hot'), 0)).toMatchObject({ resource: 'counters', kind: 'write' });
    expect(p.refusal(put('cold'), 0)).toBeUndefined();
  });
});
