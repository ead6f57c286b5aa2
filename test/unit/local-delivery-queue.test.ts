/**
 * The local run's delivery queue (`infra/local/delivery-queue.ts`): messages held until due on the
 * given clock (never longer than SQS's 15 minutes at a time), handed as SQS events in batches of
 * 10, batch item failures (or a thrown handler) handed again with a growing receive count, and
 * dead-lettered after the 5th receive.
 */
import { describe, expect, test } from '@jest/globals';
import type { SQSEvent } from 'aws-lambda';
import { LocalDeliveryQueue } from '../../infra/local/delivery-queue.js';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-model.js';
import { FixedClock } from '../support/fakes.js';

const T0 = Date.parse('2025-06-01T00:00:00.000Z');
const message = (n: number, dueMs = T0): DeliveryMessage => ({
  webhook_id: 1,
  delivery_id: `msg_1_${n}`,
  attempts: 0,
  due_at: new Date(dueMs).toISOString(),
});

describe('the local delivery queue', () => {
  test('holds a message until due, at most 15 minutes at a time, and hands due ones as an SQS event', async () => {
    const clock = new FixedClock(T0);
    const events: SQSEvent[] = [];
    const queue = new LocalDeliveryQueue({ clock, handler: async (event) => void events.push(event) });
    await queue.send([message(1, T0 + 5_000), message(2, T0 + 3_600_000)]);
    expect(queue.pending().map((m) => m.dueMs)).toEqual([T0 + 5_000, T0 + 900_000]);
    expect(await queue.runDue()).toBe(0);

    clock.ms = T0 + 5_000;
    expect(await queue.runDue()).toBe(1);
    const [record] = events[0]!.Records;
    expect(JSON.parse(record!.body)).toEqual(message(1, T0 + 5_000));
    expect(record!.attributes.ApproximateReceiveCount).toBe('1');
    expect(record!.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(queue.nextDueAt()).toBe(T0 + 900_000);
  });

  test('batches of 10', async () => {
    const clock = new FixedClock(T0);
    const sizes: number[] = [];
    const queue = new LocalDeliveryQueue({ clock, handler: async (event) => void sizes.push(event.Records.length) });
    await queue.send(Array.from({ length: 23 }, (_, i) => message(i)));
    expect(await queue.runDue()).toBe(23);
    expect(sizes.sort((a, b) => a - b)).toEqual([3, 10, 10]);
    expect(queue.pending()).toEqual([]);
  });

  test('a failed record is handed again, counted, and dead-lettered after its 5th receive; the others are done', async () => {
    const clock = new FixedClock(T0);
    const counts: string[] = [];
    const queue = new LocalDeliveryQueue({
      clock,
      handler: async (event) => ({
        batchItemFailures: event.Records.filter((r) => r.body.includes('msg_1_bad')).map((r) => {
          counts.push(r.attributes.ApproximateReceiveCount);
          return { itemIdentifier: r.messageId };
        }),
      }),
    });
    await queue.send([message(1), { ...message(1), delivery_id: 'msg_1_bad' }]);
    for (let i = 0; i < 7; i += 1) await queue.runDue();
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
    expect(queue.pending()).toEqual([]);
    expect(queue.deadLettered().map((m) => [JSON.parse(m.body).delivery_id, m.receives])).toEqual([['msg_1_bad', 5]]);
  });

  test('a handler that throws fails its whole batch', async () => {
    const clock = new FixedClock(T0);
    let calls = 0;
    const queue = new LocalDeliveryQueue({
      clock,
      handler: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
      },
    });
    await queue.send([message(1), message(2)]);
    expect(await queue.runDue()).toBe(2);
    expect(queue.pending().map((m) => m.receives)).toEqual([1, 1]);
    expect(await queue.runDue()).toBe(2);
    expect(queue.pending()).toEqual([]);
  });

  test('start runs it on a timer until stop', async () => {
    const clock = new FixedClock(T0);
    let handed = 0;
    const queue = new LocalDeliveryQueue({ clock, handler: async (event) => void (handed += event.Records.length) });
    queue.start(10);
    await queue.send([message(1)]);
    for (let i = 0; i < 100 && handed === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await queue.stop();
    expect(handed).toBe(1);
  });
});
