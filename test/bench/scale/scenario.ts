/** What every scale scenario reports, and the settings they share. */
import type { TargetCheck } from '../targets.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import type { Tally } from './load.js';

/** One scenario's outcome. */
export interface ScenarioResult extends Tally {
  readonly name: string;
  /** Clock ratio A of this scenario. */
  readonly accel: number;
  /** Offered load per second of the service's clock, ×F (the unscaled rate it stands for). */
  readonly offeredRate: number;
  /** What was achieved of it (the machine may lag). */
  readonly achievedRate: number;
  /** DynamoDB calls the proxy refused for throughput, by `table[/index] Operation`. */
  readonly throttledBy: Readonly<Record<string, number>>;
  readonly throttled: number;
  /** Scenario-specific figures, one line. */
  readonly detail: string;
  readonly checks: readonly TargetCheck[];
}

/** Throttle counts of the proxy since its last configuration. */
export function throttleFigures(proxy: DynamoProxy): { throttled: number; throttledBy: Record<string, number> } {
  return { throttled: proxy.throttledWhere(), throttledBy: Object.fromEntries(proxy.throttled) };
}

/** A check with the value quoted. */
export const checkOf = (target: string, value: number | string, met: boolean): TargetCheck => ({ target, value: String(value), met });
