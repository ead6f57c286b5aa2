/**
 * `hot_org`: one organization's many keys creating sessions at 1,500 a second together (scaled),
 * each key far under its own limits: the org's shared partitions (its audit records, sharded per
 * org; before, also the tokens' `by_org_day` index) carry the heat. Checks: no token put throttled
 * (the table or an index), no 5xx.
 */
import { API_PATH } from '../../../shared/platform/route.js';
import type { BenchStack } from '../harness.js';
import { CREATE_BODY } from '../operations.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { enterScaled, scenarioKey } from './environment.js';
import { count, offer, tally } from './load.js';
import { MAX_PER_DAY, MAX_PER_MINUTE } from './hot-key.js';
import { checkOf, throttleFigures, type ScenarioResult } from './scenario.js';

const HOT_ORG_RATE = 1_500;

export async function hotOrg(
  stack: BenchStack,
  proxy: DynamoProxy,
  o: { scale: number; accel: number; serviceSeconds: number; keys: number },
): Promise<ScenarioResult> {
  const keys = await Promise.all(
    Array.from({ length: o.keys }, () => scenarioKey(stack, { perMinute: MAX_PER_MINUTE / o.scale, perDay: MAX_PER_DAY / o.scale })),
  );
  const perServiceSecond = HOT_ORG_RATE / o.scale;
  const world = enterScaled(stack, proxy, o.scale, o.accel);
  const t = tally();
  try {
    world.clock.start();
    const achieved = await offer(perServiceSecond * o.accel, o.serviceSeconds / o.accel, async (i) => {
      t.offered++;
      const r = await stack.http.send({
        method: 'POST',
        path: `${API_PATH}?action=create-session`,
        headers: { 'x-api-key': keys[i % keys.length]! },
        body: CREATE_BODY,
      });
      count(t, r.status);
    });
    const throttles = throttleFigures(proxy);
    const tokenPuts = proxy.throttledWhere((label) => /^tokens(\/\S+)? PutItem$/.test(label));
    return {
      name: 'hot_org',
      accel: o.accel,
      offeredRate: HOT_ORG_RATE,
      achievedRate: (achieved / o.accel) * o.scale,
      ...t,
      ...throttles,
      detail: `${o.keys} keys of org 1; throttled token puts: ${tokenPuts}`,
      checks: [
        checkOf('hot_org: 0 throttled token puts', tokenPuts, tokenPuts === 0),
        checkOf('hot_org: 0 5xx', t.errors5xx, t.errors5xx === 0),
      ],
    };
  } finally {
    world.leave();
  }
}
