/**
 * `hot_key`: one API key configured at the decided maximum (100,000 calls a minute, 100,000,000 a
 * day), scaled by F, offered 1.2× its minute limit for several whole minutes of the service's clock.
 * A request is attributed to the minute it was sent in; at 1.2× the limit is reached before a minute
 * ends, so the requests in flight across a minute's end are refusals and the attribution is exact.
 * Checks: admitted never above the limit in any minute, at least 97% of it in every full minute, no 5xx.
 */
import { API_PATH } from '../../../shared/platform/route.js';
import type { BenchStack } from '../harness.js';
import { CREATE_BODY } from '../operations.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { enterScaled, scenarioKey } from './environment.js';
import { count, offer, tally } from './load.js';
import { checkOf, throttleFigures, type ScenarioResult } from './scenario.js';

/** The decided maximum limits of a key (docs/decisions.md#api-keys). */
export const MAX_PER_MINUTE = 100_000;
export const MAX_PER_DAY = 100_000_000;

export async function hotKey(
  stack: BenchStack,
  proxy: DynamoProxy,
  o: { scale: number; accel: number; minutes: number },
): Promise<ScenarioResult> {
  const limit = MAX_PER_MINUTE / o.scale;
  const key = await scenarioKey(stack, { perMinute: limit, perDay: MAX_PER_DAY / o.scale });
  const perServiceSecond = (1.2 * limit) / 60;
  const world = enterScaled(stack, proxy, o.scale, o.accel);
  const t = tally();
  const admittedBy = Array.from({ length: o.minutes }, () => 0);
  // Which 5xx, by status and code: a 503 (throttled through the retries) is not a 500.
  const failures = new Map<string, number>();
  try {
    world.clock.start();
    const achieved = await offer(perServiceSecond * o.accel, (o.minutes * 60) / o.accel, async () => {
      const minute = Math.floor((world.clock.now() - world.clock.origin) / 60_000);
      t.offered++;
      const r = await stack.http.send({
        method: 'POST',
        path: `${API_PATH}?action=create-session`,
        headers: { 'x-api-key': key },
        body: CREATE_BODY,
      });
      count(t, r.status);
      if (r.status >= 500) {
        const what = `${r.status} ${/"code":"([a-z_]+)"/.exec(r.body)?.[1] ?? ''}`.trim();
        failures.set(what, (failures.get(what) ?? 0) + 1);
      }
      if (r.status === 200 && minute < o.minutes) admittedBy[minute]!++;
    });
    const most = Math.max(...admittedBy);
    const least = Math.min(...admittedBy);
    return {
      name: 'hot_key',
      accel: o.accel,
      offeredRate: perServiceSecond * o.scale,
      achievedRate: (achieved / o.accel) * o.scale,
      ...t,
      ...throttleFigures(proxy),
      detail:
        `limit ${limit}/min (÷F); admitted per minute: ${admittedBy.join(', ')}` +
        (failures.size ? `; 5xx: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')}` : ''),
      checks: [
        checkOf(`hot_key: admitted <= limit (${limit}) in every minute`, most, most <= limit),
        checkOf(`hot_key: admitted >= 0.97 x limit (${Math.ceil(0.97 * limit)}) in every full minute`, least, least >= 0.97 * limit),
        checkOf('hot_key: 0 5xx', t.errors5xx, t.errors5xx === 0),
      ],
    };
  } finally {
    world.leave();
  }
}
