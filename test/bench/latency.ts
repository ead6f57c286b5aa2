/**
 * End-to-end latency of each operation through the local front, against one raw `GetItem` on the
 * same embedded DynamoDB, measured interleaved (operation, raw read, next operation, raw read, ...)
 * so that both see the same machine at the same moments. The ratio of the percentiles is the figure;
 * absolute times on a shared machine are not.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { performance } from 'node:perf_hooks';
import { localTableNames } from '../../infra/local/dynamo.js';
import type { Timed } from './floors.js';
import type { BenchStack } from './harness.js';
import type { BenchOperation } from './operations.js';
import { check } from './stages.js';

/** Latency samples (ms) per operation (and per extra) and of the raw read. */
export interface LatencySamples {
  readonly raw: number[];
  readonly byName: Map<string, number[]>;
}

/**
 * `warmup` rounds unrecorded, then `rounds` recorded rounds; a round times every operation once,
 * then every extra (the floors), each followed by a raw strongly consistent `GetItem` of a token
 * item (what validate reads).
 */
export async function measureLatency(
  stack: BenchStack,
  ops: readonly BenchOperation[],
  extras: readonly Timed[],
  token: string,
  options: { warmup: number; rounds: number; raw?: boolean; logPrefix?: string },
): Promise<LatencySamples> {
  const raw: number[] = [];
  const byName = new Map<string, number[]>([...ops, ...extras].map((t) => [t.name, []]));
  const rawRead = new GetCommand({ TableName: localTableNames.tokens, Key: { token }, ConsistentRead: true });
  let recording = false;
  // An operation's work returns the checks to run once the clock has stopped.
  const timed: Timed[] = [
    ...ops.map((op) => ({
      name: op.name,
      prepare: async () => {
        const request = await op.prepare();
        return async () => {
          // Only the measured request's log line counts (`prepare` may mint tokens meanwhile).
          stack.log.collecting = recording ? `${options.logPrefix ?? ''}${op.name}` : undefined;
          const response = await stack.http.send(request);
          stack.log.collecting = undefined;
          return () => {
            check(op, response.status, response.body);
            op.done?.(response);
          };
        };
      },
    })),
    ...extras,
  ];
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    recording = round >= options.warmup;
    for (const t of timed) {
      const work = await t.prepare();
      const t0 = performance.now();
      const after = await work();
      const t1 = performance.now();
      if (typeof after === 'function') after();
      if (recording) byName.get(t.name)!.push(t1 - t0);
      if (options.raw === false) continue;
      const t2 = performance.now();
      const { Item } = await stack.raw.send(rawRead);
      const t3 = performance.now();
      if (!Item) throw new Error('the raw read found no item');
      if (recording) raw.push(t3 - t2);
    }
  }
  return { raw, byName };
}
