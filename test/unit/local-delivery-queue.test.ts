/**
 * The local run's delivery queue (`infra/local/delivery-queue.ts`): messages held until due on the
 * given clock (never longer than SQS's 15 minutes at a time), handed as SQS events in batches of
 * 10, batch item failures (or a thrown handler) handed again with a growing receive count, and
 * dead-lettered after the 5th receive; handler calls side by side, a slow one holding up no other;
 * and, with a journal, what it holds kept across a restart.
 */
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  test('on the timer, a batch whose call is slow holds up no later batch', async () => {
    const clock = new FixedClock(T0);
    const handed: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const queue = new LocalDeliveryQueue({
      clock,
      handler: async (event) => {
        const ids = event.Records.map((r) => (JSON.parse(r.body) as DeliveryMessage).delivery_id);
        handed.push(...ids);
        if (ids.includes('msg_1_slow')) await slow;
      },
    });
    queue.start(5);
    await queue.send([{ ...message(1), delivery_id: 'msg_1_slow' }]);
    await until(() => handed.includes('msg_1_slow'));
    await queue.send([{ ...message(2), webhook_id: 2, delivery_id: 'msg_2_quick' }]);
    // Handed while the slow call is still under way.
    await until(() => handed.includes('msg_2_quick'));
    let idle = false;
    const waiting = queue.idle().then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    release();
    await waiting;
    await queue.stop();
    expect(queue.pending()).toEqual([]);
  });

  test('at most maxConcurrency calls at once; the others wait for a free one', async () => {
    const clock = new FixedClock(T0);
    let active = 0;
    let most = 0;
    const queue = new LocalDeliveryQueue({
      clock,
      maxConcurrency: 3,
      batchSize: 1,
      handler: async () => {
        most = Math.max(most, ++active);
        await new Promise((resolve) => setTimeout(resolve, 2));
        active--;
      },
    });
    await queue.send(Array.from({ length: 12 }, (_, i) => message(i)));
    expect(await queue.runDue()).toBe(12);
    expect(most).toBe(3);
  });

  describe('with a journal', () => {
    const journalIn = () => join(mkdtempSync(join(tmpdir(), 'gsts-queue-')), 'webhook-deliveries.queue.jsonl');

    test('a restart hands again what was sent and not done, a call under way included; what was done stays done', async () => {
      const journal = journalIn();
      try {
        const clock = new FixedClock(T0);
        const handed: string[] = [];
        const first = new LocalDeliveryQueue({
          clock,
          journal,
          batchSize: 1,
          handler: async (event) => {
            const id = (JSON.parse(event.Records[0]!.body) as DeliveryMessage).delivery_id;
            handed.push(id);
            // The process stops while this call is under way: it never ends.
            if (id === 'msg_1_2') await new Promise(() => undefined);
          },
        });
        await first.send([message(1), message(2)]);
        await first.send([message(3, T0 + 60_000)]);
        void first.runDue();
        await until(() => handed.length === 2);

        const again: DeliveryMessage[] = [];
        const second = new LocalDeliveryQueue({
          clock,
          journal,
          handler: async (event) => void again.push(...event.Records.map((r) => JSON.parse(r.body) as DeliveryMessage)),
        });
        expect(second.pending().map((m) => [JSON.parse(m.body).delivery_id, m.receives])).toEqual([
          ['msg_1_2', 0],
          ['msg_1_3', 0],
        ]);
        clock.ms = T0 + 60_000;
        expect(await second.runDue()).toBe(2);
        expect(again.map((m) => m.delivery_id).sort()).toEqual(['msg_1_2', 'msg_1_3']);
        // A third start finds nothing left.
        expect(new LocalDeliveryQueue({ clock, journal }).pending()).toEqual([]);
      } finally {
        rmSync(join(journal, '..'), { recursive: true, force: true });
      }
    });

    test('a failed message is kept with its receive count, a dead-lettered one as dead', async () => {
      const journal = journalIn();
      try {
        const clock = new FixedClock(T0);
        const failing = new LocalDeliveryQueue({
          clock,
          journal,
          maxReceiveCount: 2,
          handler: async (event) => ({
            batchItemFailures: event.Records.filter((r) => r.body.includes('msg_1_bad')).map((r) => ({ itemIdentifier: r.messageId })),
          }),
        });
        await failing.send([
          { ...message(1), delivery_id: 'msg_1_bad' },
          { ...message(2), delivery_id: 'msg_1_bad_too' },
        ]);
        await failing.runDue();
        const restarted = new LocalDeliveryQueue({ clock, journal });
        expect(restarted.pending().map((m) => [JSON.parse(m.body).delivery_id, m.receives])).toEqual([
          ['msg_1_bad', 1],
          ['msg_1_bad_too', 1],
        ]);
        await failing.runDue();
        const last = new LocalDeliveryQueue({ clock, journal });
        expect(last.pending()).toEqual([]);
        expect(last.deadLettered().map((m) => [JSON.parse(m.body).delivery_id, m.receives])).toEqual([
          ['msg_1_bad', 2],
          ['msg_1_bad_too', 2],
        ]);
      } finally {
        rmSync(join(journal, '..'), { recursive: true, force: true });
      }
    });
  });
});

/** Wait (a bounded number of turns of 5 ms) until `done()`. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!done()) throw new Error('the queue never got there');
}
