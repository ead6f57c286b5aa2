/**
 * Concurrency under load, repeated so that a lucky interleaving cannot pass for a guarantee: the
 * consume race (100 parallel consumes of one token) and the rate-limit race (50 parallel creates
 * against 10 a minute), 20 times each; and revocation racing creates, 20 times: once the PATCH
 * that revokes the key has returned, no create sent after it succeeds.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminApi, type AdminApi } from '../support/admin-api.js';
import { addFigures, addFigureLine } from '../support/figures.js';
import { auditOfKey, createTestKey, startOfNextMinute, tokensOfKey, UNLIMITED, windowCounts } from '../support/keys.js';
import { capturedLogs, startStack, type Stack } from '../support/local-stack.js';
import { sessionsApi } from '../support/sessions-api.js';
import { stopAll } from '../support/teardown.js';

const ROUNDS = 20;

let stack: Stack;
let admin: AdminApi;
const figures = { racesRun: 0, raceRequests: 0 };

beforeAll(async () => {
  stack = await startStack();
  admin = adminApi(stack);
});
afterAll(() =>
  stopAll(
    () => {
      addFigures(figures);
      addFigureLine(`races: ${figures.racesRun} races run with ${figures.raceRequests.toLocaleString('en-US')} concurrent requests`);
    },
    () => stack?.stop(),
  ),
);

describe('races, 20 rounds each', () => {
  test('100 parallel consumes of one token: exactly one 200 and 99 x 410, every round; no session id twice', async () => {
    const partner = await createTestKey(stack, UNLIMITED);
    const api = sessionsApi(stack, () => partner.raw);
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const token = await api.mint();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => api.consume({ token, player_uuid: `p-${round}-${i}` })));
      const won = results.filter((r) => r.status === 200);
      expect({ round, won: won.length, gone: results.filter((r) => r.status === 410).length }).toEqual({ round, won: 1, gone: 99 });
      const view = (await api.validate(token)).body.data;
      expect(view).toMatchObject({ valid: false, status: 'consumed' });
      winners.push(won[0]!.body.data.session_id);
      figures.racesRun++;
      figures.raceRequests += results.length;
    }
    expect(new Set(winners).size).toBe(ROUNDS);
  }, 120_000);

  test('50 parallel creates against 10 a minute: exactly ten 200s and forty 429s, counted and audited, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh UTC minute for each round, so that no round straddles a window boundary.
      startOfNextMinute(stack);
      const key = await createTestKey(stack, { rate_limit_per_minute: 10 });
      const api = sessionsApi(stack, () => key.raw);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api.create({ game_id: 101, external_ref: `r${round}-${i}` })));
      const statuses = results.map((r) => r.status);
      expect({ round, ok: statuses.filter((s) => s === 200).length, limited: statuses.filter((s) => s === 429).length }).toEqual({
        round,
        ok: 10,
        limited: 40,
      });
      const minted = results.filter((r) => r.status === 200).map((r) => r.body.data.token as string);
      expect((await tokensOfKey(stack, key.record.id)).map((t) => t.token).sort()).toEqual(minted.sort());
      const failedWrites = capturedLogs.filter((l) => l.includes('failed')).map((l) => l.slice(0, 400));
      expect({ counts: await windowCounts(stack, key.record), failedWrites }).toEqual({
        counts: { minute: 10, day: 10 },
        failedWrites: [],
      });
      const audit = await auditOfKey(stack, key.record.id);
      // Refusals counted by the window are audited; once the container knows the window is exhausted, none are written.
      expect(audit.filter((r) => r.status === 200)).toHaveLength(10);
      expect(audit.every((r) => r.status === 200 || r.status === 429)).toBe(true);
      expect(audit.length).toBeLessThanOrEqual(50);
      figures.racesRun++;
      figures.raceRequests += results.length;
    }
  }, 120_000);

  test('revocation racing creates: after the PATCH returns, zero successes, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = (await admin.create({ org_id: 1, name: `race ${round}`, rate_limit_per_minute: 100_000 })).body.data;
      const api = sessionsApi(stack, () => created.key);
      let revokedAt = Infinity;
      const outcomes: { sentAt: number; status: number; token?: string }[] = [];
      // Four partners' servers creating back to back while the admin revokes the key.
      const creator = async () => {
        for (let i = 0; i < 12; i++) {
          const sentAt = performance.now();
          const reply = await api.create({ game_id: 101 });
          outcomes.push({ sentAt, status: reply.status, token: reply.body.data?.token });
          if (sentAt > revokedAt && i >= 8) return;
        }
      };
      const revoke = async () => {
        await new Promise((resolve) => setTimeout(resolve, 5 + round));
        const res = await admin.update({ id: created.id, org_id: 1, is_active: false });
        expect(res.status).toBe(200);
        revokedAt = performance.now();
      };
      await Promise.all([creator(), creator(), creator(), creator(), revoke()]);
      const after = outcomes.filter((o) => o.sentAt > revokedAt);
      expect({ round, sentAfter: after.length > 0, succeededAfter: after.filter((o) => o.status !== 401) }).toEqual({
        round,
        sentAfter: true,
        succeededAfter: [],
      });
      // Every success (before the revocation) left its token, each counted.
      const ok = outcomes.filter((o) => o.status === 200);
      expect(ok.length).toBeGreaterThan(0); // the key did work until the revocation: a real race
      expect((await tokensOfKey(stack, created.id)).length).toBe(ok.length);
      expect((await windowCounts(stack, created)).day).toBeGreaterThanOrEqual(ok.length);
      figures.racesRun++;
      figures.raceRequests += outcomes.length + 1;
    }
  }, 120_000);
});
