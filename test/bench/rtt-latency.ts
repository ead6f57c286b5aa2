/**
 * Latency in round trips: the per-operation latency rounds (./latency.ts) run again with the
 * service's DynamoDB client pointed at the bench proxy (./proxy/dynamo-proxy.ts), where every call
 * pays a modelled round trip of `rttMs` (network + DynamoDB's service time). A call then costs
 * max(RTT, the emulator's own time) and calls the code issues in parallel overlap, so an
 * operation's latency divided by the RTT counts its sequential stages, plus what the front, the
 * handler and the emulator cost in CPU on this one machine (which AWS would not add on top: there
 * the CPU work runs in Lambda while the network round trip is the RTT).
 */
import { createDocumentClient } from '../../shared/store/dynamo-client.js';
import { overrideServices } from '../../shared/services.js';
import type { BenchStack } from './harness.js';
import { measureLatency } from './latency.js';
import type { BenchOperation } from './operations.js';
import type { DynamoProxy } from './proxy/dynamo-proxy.js';
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
  proxy: DynamoProxy,
  options: { rttMs: number; warmup: number; rounds: number },
): Promise<RttFigures> {
  proxy.configure({ rttMs: options.rttMs });
  const client = createDocumentClient({ endpoint: proxy.endpoint });
  // Every part of the services is rebuilt on its next use with this client (shared/compose/base.ts).
  overrideServices({ client });
  try {
    const samples = await measureLatency(stack, ops, [], '', {
      warmup: options.warmup,
      rounds: options.rounds,
      raw: false,
      logPrefix: RTT_LOG_PREFIX,
    });
    const byName = new Map(
      ops.map((op) => {
        const s = samples.byName.get(op.name)!;
        return [op.name, { p50: percentile(s, 50) / options.rttMs, p99: percentile(s, 99) / options.rttMs }] as const;
      }),
    );
    return { rttMs: options.rttMs, byName };
  } finally {
    // Back to the stack's own client (the stage recorder and the other phases use it).
    overrideServices({ client: stack.service.services.client });
    client.destroy();
    proxy.configure({});
  }
}
