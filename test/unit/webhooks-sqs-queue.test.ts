/**
 * The SQS adapter's request body (shared/webhooks/sqs-delivery-queue.ts): SendMessageBatch of SQS's
 * JSON protocol, each message delayed until it is due and never beyond SQS's 15 minutes (a longer
 * wait is the worker sending it again with what remains), never negative.
 */
import { describe, expect, test } from '@jest/globals';
import { queueDelaySeconds, sendBatchBody } from '../../shared/webhooks/sqs-delivery-queue.js';
import { unreadableMessageBody } from '../../shared/webhooks/sqs-stream-failures.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

test('the delay is the whole seconds until due, 0 when due or past, at most 900', () => {
  expect(queueDelaySeconds(at(0), NOW)).toBe(0);
  expect(queueDelaySeconds(at(-60_000), NOW)).toBe(0);
  expect(queueDelaySeconds(at(4_001), NOW)).toBe(5);
  expect(queueDelaySeconds(at(5 * 60_000), NOW)).toBe(300);
  expect(queueDelaySeconds(at(2 * 3_600_000), NOW)).toBe(900);
});

test('a batch is the queue URL and one entry per message: an id, the message as JSON, its delay', () => {
  const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries';
  const messages = [
    { webhook_id: 3, delivery_id: 'msg_3_01JDA', attempts: 0, due_at: at(0) },
    { webhook_id: 4, delivery_id: 'msg_4_01JDB', attempts: 2, due_at: at(30 * 60_000) },
  ];
  expect(JSON.parse(sendBatchBody(url, messages, NOW))).toEqual({
    QueueUrl: url,
    Entries: [
      { Id: '0', MessageBody: JSON.stringify(messages[0]), DelaySeconds: 0 },
      { Id: '1', MessageBody: JSON.stringify(messages[1]), DelaySeconds: 900 },
    ],
  });
});

describe('a kept stream record as a message of the stream failures queue (shared/webhooks/sqs-stream-failures.ts)', () => {
  const kept = (imageBytes: number) => ({
    kind: 'unreadable-record' as const,
    error: 'Unexpected token',
    kept_at: at(0),
    record: {
      eventID: 'ev-1',
      eventName: 'MODIFY',
      dynamodb: { Keys: { token: { S: 't' } }, NewImage: { pad: { S: 'x'.repeat(imageBytes) } }, OldImage: {}, SequenceNumber: '42' },
    },
  });

  test('the record whole, with its error, when it fits SQS’s 256 KB', () => {
    expect(JSON.parse(unreadableMessageBody(kept(1_000)))).toEqual(kept(1_000));
  });

  test('too large: the record without its images (its keys, event id and sequence number say which change), marked so', () => {
    const body = unreadableMessageBody(kept(300_000));
    expect(Buffer.byteLength(body)).toBeLessThan(256 * 1024);
    expect(JSON.parse(body)).toEqual({
      ...kept(0),
      images_omitted: true,
      record: { eventID: 'ev-1', eventName: 'MODIFY', dynamodb: { Keys: { token: { S: 't' } }, SequenceNumber: '42' } },
    });
  });
});
