/**
 * What the play-page function does to DynamoDB: the union of its operations' declared `data` (its
 * IAM policy) is exactly what its requests perform — the pages read the catalog and the token, and
 * the page script's play session consumes as consume-session does: one conditional
 * `UpdateItem` of the token, and the session ids' block reservation on the counters.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { routes } from '../../shared/routes.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { partner, startPlay, type Partner } from '../support/play-pages.js';
import { RoundTripRecorder } from '../support/round-trips.js';
import { stopAll } from '../support/teardown.js';

let stack: Stack;
let acme: Partner;
const recorder = new RoundTripRecorder();
/** Every `table:Action` the play-page function performed in this file. */
const used = new Set<string>();

beforeAll(async () => {
  // A stack of its own: no consumption before this file's, so its first one reserves a block of session ids.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
  acme = await partner(stack);
});
afterAll(() => stopAll(() => stack?.stop()));

/** Run one play-page request and record what it did. */
async function traced<T>(work: () => Promise<T>): Promise<T> {
  const { value, calls } = await recorder.measure(work);
  for (const call of calls) used.add(`${call.table}:${call.action}`);
  return value;
}

test('the play-page function performs exactly the actions its operations declare', async () => {
  const [game, stream, embed, used410] = await Promise.all([
    acme.mint({ game_id: 101 }),
    acme.mint({ stream_id: 201 }),
    acme.mint({ game_id: 101 }),
    acme.mint({ game_id: 101 }),
  ]);
  for (const path of [
    `/play/game/101?session_token=${game}`,
    `/stream/acme/201?session_token=${stream}`,
    `/embed/101?session_token=${embed}`,
  ]) {
    expect((await traced(() => stack.request(path))).status).toBe(200);
  }
  for (const token of [game, stream, embed, used410]) expect((await traced(() => startPlay(stack, { token }))).status).toBe(200);
  expect((await traced(() => startPlay(stack, { token: used410 }))).status).toBe(410);

  const declared = new Set(
    routes
      .filter((r) => r.function === 'play-page')
      .flatMap((r) => Object.entries(r.data).flatMap(([table, actions]) => (actions as readonly string[]).map((a) => `${table}:${a}`))),
  );
  expect([...used].sort()).toEqual([...declared].sort());
  expect([...declared].sort()).toEqual(['catalog:GetItem', 'counters:UpdateItem', 'tokens:GetItem', 'tokens:UpdateItem']);
});
