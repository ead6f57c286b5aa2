/**
 * `viral_game`: play-page views of one game at 10,000 a second (scaled), each viewer with a token of
 * their own (a pool minted beforehand, each token viewed a few times, as refreshes). The game's
 * catalog item is the hot partition. Check: no 5xx.
 */
import type { BenchStack } from '../harness.js';
import { mintTokens } from '../operations.js';
import type { DynamoProxy } from '../proxy/dynamo-proxy.js';
import { enterScaled } from './environment.js';
import { count, offer, tally } from './load.js';
import { checkOf, throttleFigures, type ScenarioResult } from './scenario.js';

const VIRAL_RATE = 10_000;

export async function viralGame(
  stack: BenchStack,
  proxy: DynamoProxy,
  o: { scale: number; accel: number; serviceSeconds: number; viewers: number },
): Promise<ScenarioResult> {
  const tokens = await mintTokens(stack, o.viewers);
  const perServiceSecond = VIRAL_RATE / o.scale;
  const world = enterScaled(stack, proxy, o.scale, o.accel);
  const t = tally();
  try {
    world.clock.start();
    const achieved = await offer(perServiceSecond * o.accel, o.serviceSeconds / o.accel, async (i) => {
      t.offered++;
      const r = await stack.http.send({ method: 'GET', path: `/play/game/101?session_token=${tokens[i % tokens.length]}` });
      count(t, r.status);
    });
    return {
      name: 'viral_game',
      accel: o.accel,
      offeredRate: VIRAL_RATE,
      achievedRate: (achieved / o.accel) * o.scale,
      ...t,
      ...throttleFigures(proxy),
      detail: `${o.viewers} viewers of game 101`,
      checks: [checkOf('viral_game: 0 5xx', t.errors5xx, t.errors5xx === 0)],
    };
  } finally {
    world.leave();
  }
}
