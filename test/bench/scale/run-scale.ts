/**
 * The four scale scenarios, one after the other, each in a fresh scaled world (buckets full,
 * counters at zero, new compositions of the services). F and each scenario's A are fixed here and
 * printed with the results: see ./environment.ts for what they mean and BENCHMARKS.md for why.
 */
import type { BenchStack } from '../harness.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { consumeBurst } from './consume-burst.js';
import { hotKey } from './hot-key.js';
import { hotOrg } from './hot-org.js';
import type { ScenarioResult } from './scenario.js';
import { viralGame } from './viral-game.js';

/**
 * F = 500: a partition holds 2 WCU/s and 6 RCU/s (of the service's clock), the hot key's limit is
 * 200 calls a minute, and the heaviest scenario (hot_key at A = 12: 48 requests per real second)
 * stays within what this 2-core machine serves with the whole stack in one process. 1000 / F must
 * be a whole number: it is handed to the service as DYNAMODB_PARTITION_WRITE_UNITS.
 *
 * One scaled request stands for F real ones, and so does one scaled container: consume_burst's 4
 * cold containers stand for 2,000 starting at once, more than Lambda's per-function scaling step
 * (1,000 execution environments per 10 s), so it is a pessimistic burst.
 */
export const SCALE = {
  factor: 500,
  hotKey: { accel: 6, minutes: 3 },
  hotOrg: { accel: 10, serviceSeconds: 40, keys: 16 },
  viralGame: { accel: 2, serviceSeconds: 10, viewers: 100 },
  consumeBurst: { accel: 1, serviceSeconds: 6, containers: 4 },
} as const;

/** Run every scenario; `progress` hears which one starts. */
export async function runScale(stack: BenchStack, proxy: DynamoProxy, progress: (what: string) => void): Promise<ScenarioResult[]> {
  const F = SCALE.factor;
  const out: ScenarioResult[] = [];
  progress(`scale hot_key: F=${F}, A=${SCALE.hotKey.accel}, ${SCALE.hotKey.minutes} minutes of the service's clock`);
  out.push(await hotKey(stack, proxy, { scale: F, ...SCALE.hotKey }));
  progress(`scale hot_org: F=${F}, A=${SCALE.hotOrg.accel}`);
  out.push(await hotOrg(stack, proxy, { scale: F, ...SCALE.hotOrg }));
  progress(`scale viral_game: F=${F}, A=${SCALE.viralGame.accel}`);
  out.push(await viralGame(stack, proxy, { scale: F, ...SCALE.viralGame }));
  progress(`scale consume_burst: F=${F}, A=${SCALE.consumeBurst.accel}, ${SCALE.consumeBurst.containers} containers`);
  out.push(await consumeBurst(stack, proxy, { scale: F, ...SCALE.consumeBurst }));
  return out;
}
