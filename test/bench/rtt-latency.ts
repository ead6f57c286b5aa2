/**
 * Latency in round trips: the per-operation latency rounds (./latency.ts) run again with the
 * service's DynamoDB client paying a modelled round trip on every call: a call resolves no earlier
 * than `rttMs` after it was sent (the RTT as a client in AWS sees it: network, DynamoDB's service
 * time and the SDK's own work), so a call costs max(RTT, its real time here). DynamoDB (dynalite)
 * runs in a process of its own (./dynamo-process.ts), so calls the code issues in parallel overlap
 * as on a network, and an operation's latency divided by the RTT counts its sequential stages, plus
 * what the front and the handler cost in CPU on this machine.
 */
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { documentClient } from '../../infra/local/dynamo.js';
import { overrideServices } from '../../infra/local/all-services.js';
import type { BenchStack } from './harness.js';
import { measureLatency } from './latency.js';
import type { BenchOperation } from './operations.js';
import { percentile } from './stats.js';

/** Each operation's p50 and p99 in RTTs. */
export interface RttFigures {
  readonly rttMs: number;
  readonly byName: ReadonlyMap<string, { readonly p50: number; readonly p99: number }>;
}

/** The prefix of the log lines kept during these rounds (their handler times include the RTTs). */
export const RTT_LOG_PREFIX = 'rtt:';

/** `warmup` + `rounds` rounds of every operation, one request at a time, every DynamoDB call paying `rttMs`. */
export async function measureRttLatency(
  stack: BenchStack,
  ops: readonly BenchOperation[],
  options: { rttMs: number; warmup: number; rounds: number },
): Promise<RttFigures> {
  const samples = await withRoundTrip(stack, options.rttMs, () =>
    measureLatency(stack, ops, [], '', {
      warmup: options.warmup,
      rounds: options.rounds,
      raw: false,
      logPrefix: RTT_LOG_PREFIX,
    }),
  );
  const byName = new Map(
    ops.map((op) => {
      const s = samples.byName.get(op.name)!;
      return [op.name, { p50: percentile(s, 50) / options.rttMs, p99: percentile(s, 99) / options.rttMs }] as const;
    }),
  );
  return { rttMs: options.rttMs, byName };
}

/** Run `work` with every DynamoDB call of the service paying `rttMs` (also the browser phase's, ./play-start.ts). */
export async function withRoundTrip<T>(stack: BenchStack, rttMs: number, work: () => Promise<T>): Promise<T> {
  const client = documentClient(stack.service.dynamoConnection);
  client.middlewareStack.add(roundTrip(rttMs), { step: 'initialize', name: 'modelledRoundTrip' });
  // Every part of the services is rebuilt on its next use with this client (shared/platform/services.ts).
  overrideServices({ ...stack.service.overrides, client });
  try {
    return await work();
  } finally {
    // Back to the stack's own client (the stage recorder and the other phases use it).
    overrideServices(stack.service.overrides);
    client.destroy();
  }
}

/** A middleware that holds each call's answer until `rttMs` after the call was sent. */
function roundTrip(rttMs: number): InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> {
  return (next) => async (args) => {
    const sent = performance.now();
    const output = await next(args);
    const wait = sent + rttMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return output;
  };
}
