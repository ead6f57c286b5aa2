/**
 * The two lifecycles the cost is quoted for, assembled from the run's figures: the API lifecycle
 * (create + validate + consume, a partner's backend) and the browser lifecycle (create + play page
 * + `POST /play/session`, a player's page: its script's one request consumes the
 * token and sets the play cookie). Lambda's billed time is the handler time of
 * the round-trip latency rounds (DynamoDB answering after a network round trip, as in AWS) where
 * they ran, else that of the CPU-overhead rounds.
 */
import type { CapacityUse } from './capacity.js';
import { auditRecordsOf, platformLinesLogged, responseBytes, storedItems } from './cost-inputs.js';
import { lifecycleCost, type LifecycleCost, type LifecycleStep, type StoredItems } from './cost.js';
import type { BenchStack, RequestLog } from './harness.js';
import type { BenchOperation } from './operations.js';
import { RTT_LOG_PREFIX } from './rtt-latency.js';
import { median } from './stats.js';

/** The requests of each lifecycle, by the benchmark's operation names. */
export const API_LIFECYCLE = ['create_session', 'validate_session', 'consume_session'] as const;
export const BROWSER_LIFECYCLE = ['create_session', 'play_page', 'play_session'] as const;

/** What must be measured while the stack runs. */
export interface CostInputs {
  readonly responseBytes: ReadonlyMap<string, number>;
  readonly stored: StoredItems;
}

/** Measure response sizes of the lifecycles' operations and the stored items of a fresh token. */
export async function measureCostInputs(stack: BenchStack, ops: readonly BenchOperation[], token: string): Promise<CostInputs> {
  const sizes = new Map<string, number>();
  for (const name of new Set<string>([...API_LIFECYCLE, ...BROWSER_LIFECYCLE])) {
    const op = ops.find((o) => o.name === name);
    if (!op) throw new Error(`the cost model needs the operation ${name}`);
    sizes.set(name, await responseBytes(stack, op));
  }
  return { responseBytes: sizes, stored: await storedItems(stack, token) };
}

/** Both lifecycles' costs, and the API lifecycle's with and without Lambda's platform log lines. */
export interface Lifecycles {
  readonly platformLines: boolean;
  readonly api: LifecycleCost;
  readonly browser: LifecycleCost;
  readonly apiBefore: LifecycleCost;
  readonly apiAfter: LifecycleCost;
  readonly steps: ReadonlyMap<string, LifecycleStep>;
}

/** Price the lifecycles from per-operation figures. */
export function priceLifecycles(
  figures: readonly { name: string; capacity: CapacityUse; handlerMs: number; picture: string }[],
  log: RequestLog,
  inputs: CostInputs,
): Lifecycles {
  const steps = new Map<string, LifecycleStep>();
  for (const name of new Set<string>([...API_LIFECYCLE, ...BROWSER_LIFECYCLE])) {
    const f = figures.find((o) => o.name === name)!;
    const rttMs = log.of(`${RTT_LOG_PREFIX}${name}`);
    const volume = log.volume(name);
    steps.set(name, {
      name,
      capacity: f.capacity,
      // Lambda bills whole milliseconds, at least one.
      billedMs: rttMs.length ? Math.max(1, Math.ceil(median(rttMs))) : f.handlerMs,
      logBytes: volume.requests ? volume.bytes / volume.requests : 0,
      responseBytes: inputs.responseBytes.get(name)!,
      auditRecords: auditRecordsOf(f.picture),
    });
  }
  const pick = (names: readonly string[]) => names.map((n) => steps.get(n)!);
  const platformLines = platformLinesLogged();
  return {
    platformLines,
    api: lifecycleCost(pick(API_LIFECYCLE), inputs.stored, platformLines),
    browser: lifecycleCost(pick(BROWSER_LIFECYCLE), inputs.stored, platformLines),
    apiBefore: lifecycleCost(pick(API_LIFECYCLE), inputs.stored, true),
    apiAfter: lifecycleCost(pick(API_LIFECYCLE), inputs.stored, false),
    steps,
  };
}
