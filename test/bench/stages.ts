/**
 * Round-trip stages and capacity units per operation, on the warm path: each operation is called a
 * few times unrecorded, then a fixed number of times one request at a time with every DynamoDB call
 * of the service's client recorded (test/support/round-trips.ts) and priced (./capacity.ts).
 * Medians are reported: a once-a-minute `last_used_at` stamp or a once-per-100 session-id block
 * reservation may add a call to a single sample; both are amortized costs, quoted separately.
 */
import { describeStages, RoundTripRecorder, stageCount } from '../support/round-trips.js';
import { CapacityProbe, type CapacityUse } from './capacity.js';
import type { BenchStack } from './harness.js';
import type { BenchOperation } from './operations.js';
import { median } from './stats.js';

/** What the stage pass found for one operation. */
export interface StageFigures {
  /** Median number of sequential stages. */
  readonly stages: number;
  /** Median number of DynamoDB calls. */
  readonly calls: number;
  /** Median read and write capacity units. */
  readonly capacity: CapacityUse;
  /** The calls of a median sample, stage by stage. */
  readonly picture: string;
}

/** Warm up, then record `samples` requests of each operation. */
export async function measureStages(
  stack: BenchStack,
  ops: readonly BenchOperation[],
  options: { warmup: number; samples: number },
): Promise<Map<string, StageFigures>> {
  const probe = new CapacityProbe(stack.raw);
  const recorder = new RoundTripRecorder(probe);
  const detach = recorder.attach(stack.service.services.client);
  const out = new Map<string, StageFigures>();
  try {
    for (const op of ops) {
      for (let i = 0; i < options.warmup; i++) await call(stack, op);
      const samples = [];
      for (let i = 0; i < options.samples; i++) {
        const request = await op.prepare();
        const { value, calls } = await recorder.measure(() => stack.http.send(request));
        check(op, value.status, value.body);
        op.done?.(value);
        samples.push({ stages: stageCount(calls), calls, capacity: probe.total(calls) });
      }
      const stages = median(samples.map((s) => s.stages));
      const calls = median(samples.map((s) => s.calls.length));
      const typical = samples.find((s) => s.stages === stages && s.calls.length === calls) ?? samples[0]!;
      out.set(op.name, {
        stages,
        calls,
        capacity: { read: median(samples.map((s) => s.capacity.read)), write: median(samples.map((s) => s.capacity.write)) },
        picture: describeStages(typical.calls),
      });
    }
  } finally {
    detach();
  }
  return out;
}

/** One unmeasured request. */
async function call(stack: BenchStack, op: BenchOperation): Promise<void> {
  const response = await stack.http.send(await op.prepare());
  check(op, response.status, response.body);
  op.done?.(response);
}

/** A wrong answer stops the run: figures of failing requests would mean nothing. */
export function check(op: BenchOperation, status: number, body: string): void {
  if (status !== op.status) throw new Error(`${op.name} answered ${status} (expected ${op.status}): ${body.slice(0, 300)}`);
}
