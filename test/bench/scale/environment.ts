/**
 * The scaled world of a scale scenario: the service's DynamoDB client goes through the bench proxy
 * with DynamoDB's per-partition throughput divided by F, and the service runs on a clock A times
 * faster than real time (so that several rate-limit minutes fit in seconds). Limits are per second
 * of the service's clock: 1,000/F WCU/s and 3,000/F RCU/s per partition key value, i.e. ×A per real
 * second; loads are scaled the same way (a rate per service second ÷ F, ×A per real second). The
 * service is told the scaled partition limit (`DYNAMODB_PARTITION_WRITE_UNITS` = 1000/F) so that
 * code sizing its write sharding sizes it as it would in AWS.
 *
 * One scaled request stands for F real ones, so a partition's bucket meets F times fewer requests
 * refilling F times slower: the dynamics are DynamoDB's at full scale (up to granularity: a bucket
 * of 1,000/F units). What does not follow the clock: RETRY_POLICY's backoff and the machine's CPU
 * time are real milliseconds, so in the service's time they are A× longer. A retry then finds A×
 * more refilled capacity than it would in AWS (optimistic for throttles, pessimistic for latency);
 * at A = 1 the retries are exact.
 */
import { performance } from 'node:perf_hooks';
import { generateRawKey, newKeyRecord } from '../../../shared/keys/api-keys.js';
import type { Clock } from '../../../shared/platform/time.js';
import { IdAllocator } from '../../../shared/platform/ids.js';
import { resetEnv } from '../../../shared/platform/env.js';
import { documentClient } from '../../../infra/local/dynamo.js';
import { overrideServices } from '../../../infra/local/all-services.js';
import type { BenchStack } from '../harness.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { PARTITION_WRITE_UNITS } from '../proxy/partitions.js';

/** A scenario's scaled world while it runs. */
export interface Scaled {
  /** The service's clock (starts on a whole minute when the scenario starts its load). */
  readonly clock: Clock & { readonly origin: number; start(): void };
  /** Give the services a fresh composition (new containers): every part is rebuilt on its next use. */
  freshContainer(): void;
  leave(): void;
}

/** Enter the scaled world: proxy limits ÷ F at A× real time, the services on that clock and the proxied client. */
export function enterScaled(stack: BenchStack, proxy: DynamoProxy, scale: number, accel: number): Scaled {
  process.env.DYNAMODB_PARTITION_WRITE_UNITS = String(PARTITION_WRITE_UNITS / scale);
  resetEnv();
  const origin = Math.ceil(Date.now() / 60_000) * 60_000;
  let t0 = performance.now();
  const clock = {
    origin,
    now: () => origin + (performance.now() - t0) * accel,
    start: () => {
      t0 = performance.now();
    },
  };
  const client = documentClient(proxy.connection);
  const freshContainer = () => overrideServices({ ...stack.service.overrides, clock, client });
  proxy.configure({ partitions: { scale, accel } });
  freshContainer();
  return {
    clock,
    freshContainer,
    leave: () => {
      overrideServices(stack.service.overrides);
      client.destroy();
      proxy.configure({});
      delete process.env.DYNAMODB_PARTITION_WRITE_UNITS;
      resetEnv();
    },
  };
}

/** A new API key of org 1 (business tier) with the given limits, written straight to the table. @returns the raw key */
export async function scenarioKey(stack: BenchStack, limits: { perMinute: number; perDay: number }): Promise<string> {
  const s = stack.service.services;
  const raw = generateRawKey();
  const id = await new IdAllocator(s.stores.sequences, { sequence: 'key_id', blockSize: 1 }).nextId();
  await s.stores.keys.create(
    newKeyRecord(
      raw,
      id,
      { org_id: 1, tier: 'business' },
      { name: 'scale', rate_limit_per_minute: Math.round(limits.perMinute), rate_limit_per_day: Math.round(limits.perDay) },
      s.clock.now(),
    ),
  );
  return raw;
}
