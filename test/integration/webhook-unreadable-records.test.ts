/**
 * A stream record the events worker cannot read, in the local run as `npm start` runs it, on the
 * backend of this tier: a token item no store wrote (its metadata text is not JSON) consumed between
 * good ones. The good ones reach the receiver; the poison one's records (its put and its consume)
 * are kept in the local failures list with their error (`/dev/webhooks` shows it, as HTML and JSON), counted in the
 * `WebhookRecordsUnreadable` metric; a replay while its cause stays keeps it again (never lost, never
 * dropped). docs/runbook.md#webhook-records-unreadable.
 */
import { afterEach, beforeAll, beforeEach, expect, jest, test } from '@jest/globals';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { METRIC } from '../../shared/platform/observability.js';
import { describeWithStack } from '../support/describe-with-stack.js';
import { createTestKey, UNLIMITED, type TestKey } from '../support/keys.js';
import { sessionsApi } from '../support/sessions-api.js';

describeWithStack(
  `an unreadable stream record is kept, on ${process.env.DYNAMODB_BACKEND === 'local' ? 'DynamoDB Local' : 'dynalite'}`,
  ({ stack, admin }) => {
    let partner: TestKey;
    let lines: string[];
    const api = () => sessionsApi(stack, () => partner.raw);
    const consumedAt = (name: string) =>
      stack.devWebhooks
        .arrived()
        .filter((d) => d.path === `/dev/webhooks/${name}` && d.type === 'session.consumed')
        .map((d) => (JSON.parse(d.body) as { data: { token: string } }).data.token);

    beforeAll(async () => {
      partner = await createTestKey(stack, UNLIMITED);
      expect((await admin.createWebhook({ org_id: 1, url: `${stack.baseUrl}/dev/webhooks/poison`, events: ['*'] })).status).toBe(200);
    });
    beforeEach(() => {
      lines = [];
      jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
    });
    afterEach(() => {
      jest.restoreAllMocks();
    });

    /** A consumed token as no store writes it: its metadata text is not JSON (put active, then consumed, as a consume would). */
    async function consumePoison(): Promise<string> {
      const token = randomUUID();
      const now = stack.clock.now();
      const item = {
        token,
        org_id: 1,
        key_id: partner.record.id,
        game_id: 101,
        stream_id: null,
        external_ref: null,
        metadata: '{"unterminated',
        status: 'active',
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + 3_600_000).toISOString(),
      };
      const { client } = stack.services;
      await client.send(new PutCommand({ TableName: stack.tableNames.tokens, Item: item }));
      await client.send(
        new UpdateCommand({
          TableName: stack.tableNames.tokens,
          Key: { token },
          UpdateExpression: 'SET #status = :consumed, session_id = :sid, player_uuid = :none, consumed_at = :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':consumed': 'consumed', ':sid': 987_654, ':none': null, ':now': new Date(now).toISOString() },
        }),
      );
      return token;
    }

    test('between good consumes: they are delivered; it is kept with its error, shown, counted; a replay keeps it again', async () => {
      const before = await Promise.all([api().mint(), api().mint()]);
      const after = await Promise.all([api().mint(), api().mint()]);
      await stack.workers.settle();
      // Its stream records land between the good ones'.
      for (const token of before) expect((await api().consume({ token })).status).toBe(200);
      const poison = await consumePoison();
      for (const token of after) expect((await api().consume({ token })).status).toBe(200);
      await stack.workers.settle();

      expect(consumedAt('poison').sort()).toEqual([...before, ...after].sort());
      // Both of its records (the put and the consume) are unreadable: both kept, in order.
      const { body } = await stack.request('/dev/webhooks?format=json');
      const poisonRecord = (eventName: string) =>
        expect.objectContaining({ eventName, dynamodb: expect.objectContaining({ Keys: { token: { S: poison } } }) });
      expect(body.failures).toEqual(
        ['INSERT', 'MODIFY'].map((eventName) => ({
          kind: 'unreadable-record',
          error: expect.stringMatching(/JSON/),
          kept_at: expect.any(String),
          record: poisonRecord(eventName),
        })),
      );
      const emf = lines
        .filter((l) => l.includes(`"${METRIC.webhookRecordsUnreadable}"`))
        .map((l) => JSON.parse(l) as Record<string, number>);
      expect(emf.reduce((sum, l) => sum + l[METRIC.webhookRecordsUnreadable]!, 0)).toBe(2);
      const page = await stack.request('/dev/webhooks');
      expect(page.body).toContain('2 stream record(s) kept');
      for (const { record } of body.failures) expect(page.body).toContain(record.eventID);

      // The cause stays (the images are as they were written): replayed, they are kept again, not lost.
      const replayed = await fetch(`${stack.baseUrl}/dev/webhooks/failures/replay`, { method: 'POST' });
      expect(await replayed.json()).toEqual({ replayed: 2, kept_again: 2 });
      const again = (await stack.request('/dev/webhooks?format=json')).body.failures as { record: unknown }[];
      expect(again.map((f) => f.record)).toEqual(body.failures.map((f: { record: unknown }) => f.record));
      expect(consumedAt('poison')).not.toContain(poison);
    }, 60_000);
  },
  { workers: true },
);
