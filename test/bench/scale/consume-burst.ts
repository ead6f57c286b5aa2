/**
 * `consume_burst`: consumes across many tokens while the session-id allocator starts cold in many
 * containers. K independent compositions of the session services (shared/sessions/services.ts: each with its
 * own in-memory state, as K fresh Lambda containers) share the proxied DynamoDB; consumes are spread
 * over them round robin at 10,000 a second (scaled), so every container reserves its first id block
 * within the first moments. The domain is called directly (a container's handler would call the same
 * method); an error is a 5xx when the service's error table says so. Checks: no 5xx, every session
 * id handed out once.
 */
import { statusOf } from '../../../shared/platform/errors.js';
import { sessionTokens } from '../../../shared/sessions/services.js';
import type { BenchStack } from '../harness.js';
import { mintTokens } from '../operations.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { enterScaled } from './environment.js';
import { count, offer, tally } from './load.js';
import { checkOf, throttleFigures, type ScenarioResult } from './scenario.js';

const CONSUME_RATE = 10_000;

export async function consumeBurst(
  stack: BenchStack,
  proxy: DynamoProxy,
  o: { scale: number; accel: number; serviceSeconds: number; containers: number },
): Promise<ScenarioResult> {
  const perServiceSecond = CONSUME_RATE / o.scale;
  const tokens = await mintTokens(stack, Math.round(perServiceSecond * o.serviceSeconds));
  const world = enterScaled(stack, proxy, o.scale, o.accel);
  const containers: ReturnType<typeof sessionTokens>[] = [];
  for (let k = 0; k < o.containers; k++) {
    world.freshContainer();
    containers.push(sessionTokens());
  }
  const t = tally();
  const ids: number[] = [];
  try {
    world.clock.start();
    const achieved = await offer(perServiceSecond * o.accel, o.serviceSeconds / o.accel, async (i) => {
      t.offered++;
      try {
        const consumed = await containers[i % containers.length]!.sessions.consume(tokens[i]!, 'p-1');
        ids.push(consumed.session_id);
        count(t, 200);
      } catch (error) {
        count(t, statusOf(error));
      }
    });
    const unique = new Set(ids).size;
    return {
      name: 'consume_burst',
      accel: o.accel,
      offeredRate: CONSUME_RATE,
      achievedRate: (achieved / o.accel) * o.scale,
      ...t,
      ...throttleFigures(proxy),
      detail: `${o.containers} cold containers; ${ids.length} session ids, ${unique} distinct`,
      checks: [
        checkOf('consume_burst: 0 5xx', t.errors5xx, t.errors5xx === 0),
        checkOf('consume_burst: session ids unique', `${unique}/${ids.length}`, unique === ids.length),
      ],
    };
  } finally {
    world.leave();
  }
}
