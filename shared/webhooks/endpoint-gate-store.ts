/**
 * The DynamoDB adapter of {@link EndpointGate}: each endpoint has {@link ENDPOINT_PLACES} places,
 * one lease item each in the webhooks table (`LEASE#<webhook_id>#<place>` / `-`), holding a random
 * lease id and the time it runs out. Taking a place is a conditional put (free, or its lease ran
 * out); giving it back sets the lease to run out {@link MIN_HOLD_MS} after it was taken, conditional
 * on still holding it, so a lease that ran out and was taken by another attempt is not freed by the
 * first. A crashed attempt's place frees itself when its lease runs out: the attempt timeout and as
 * much again.
 *
 * The same places cap the rate: a place is taken at most once per {@link MIN_HOLD_MS}, so an
 * endpoint gets at most 5 attempts at a time and 50 a second (a receiver that answers in 10 ms is
 * not flooded by a backlog), and its deliveries' partition stays far below DynamoDB's 1,000 writes
 * a second (each attempt writes about 3 items there).
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type StoreOptions, unlessRefused } from '../platform/dynamo/client.js';
import type { EndpointGate } from './ports.js';
import { ATTEMPT_TIMEOUT_MS } from './schedule.js';

/** Attempts under way to one endpoint at most. */
export const ENDPOINT_PLACES = 5;

/** How long a lease holds its place: an attempt's longest, and as much again for its bookkeeping. */
const LEASE_MS = 2 * ATTEMPT_TIMEOUT_MS;

/** The shortest a place is held: 5 places, at most 50 attempts a second to one endpoint. */
const MIN_HOLD_MS = 100;

const leaseKey = (webhookId: number, place: number) => ({ pk: `LEASE#${webhookId}#${place}`, sk: '-' });

/** See the module comment. */
export class DynamoEndpointGate implements EndpointGate {
  constructor(
    private readonly options: StoreOptions,
    /** Where the search for a free place starts (random by default, so concurrent attempts do not all try place 0 first). */
    private readonly firstPlace: () => number = () => Math.floor(Math.random() * ENDPOINT_PLACES),
  ) {}

  async acquire(webhookId: number, nowMs: number): Promise<string | undefined> {
    const lease = randomUUID();
    const start = this.firstPlace();
    for (let i = 0; i < ENDPOINT_PLACES; i += 1) {
      const place = (start + i) % ENDPOINT_PLACES;
      const taken = await unlessRefused(
        this.options.client.send(
          new PutCommand({
            TableName: this.options.tableName,
            Item: {
              ...leaseKey(webhookId, place),
              lease: `${place}:${nowMs}:${lease}`,
              until: nowMs + LEASE_MS,
              // Gone from the table a day after it ran out (the next acquire overwrites it anyway).
              ttl: Math.floor((nowMs + LEASE_MS) / 1000) + 86_400,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': nowMs },
          }),
        ),
        () => false,
      );
      if (taken) return `${place}:${nowMs}:${lease}`;
    }
    return undefined;
  }

  async release(webhookId: number, lease: string): Promise<void> {
    const [place, takenMs] = lease.split(':', 2).map(Number) as [number, number];
    if (!Number.isInteger(place) || place < 0 || place >= ENDPOINT_PLACES || !Number.isSafeInteger(takenMs)) {
      throw new Error('not a lease of this gate');
    }
    await unlessRefused(
      this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: leaseKey(webhookId, place),
          UpdateExpression: 'SET #until = :until',
          ConditionExpression: '#lease = :mine',
          ExpressionAttributeNames: { '#lease': 'lease', '#until': 'until' },
          ExpressionAttributeValues: { ':mine': lease, ':until': takenMs + MIN_HOLD_MS },
        }),
      ),
      // The lease ran out and another attempt holds the place now: it is theirs to give back.
      () => undefined,
    );
  }
}
