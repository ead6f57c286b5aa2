/**
 * The fuzz tier's per-batch check (`fuzz-harness.ts`): the tables were scanned before and after a
 * batch of generated requests, and every change must be explained by a request the service
 * accepted; a refused one changed nothing (unless it presented the fuzz key: calls refused after
 * authentication, its 400s included, are counted and audited, as decided).
 */
import { expect } from '@jest/globals';
import { matchRoute } from '../../shared/routes.js';
import { target, type FuzzRequest } from './fuzz-requests.js';
import type { TestKey } from './keys.js';
import { diffTables, type Snapshot } from './tables.js';

/** The REST path of the sessions and key management. */
export const API = '/api/org-api-keys';
/** The MCP endpoint. */
export const MCP_PATH = '/api/mcp';
/** A session token in an answer, also inside JSON text (MCP tool results). */
const TOKEN_IN_ANSWER = /\\?"token\\?"\s*:\s*\\?"([0-9a-fA-F-]{36})/g;

/** A request sent and its answer, for the batch's attribution check. */
export interface Sent {
  readonly request: FuzzRequest;
  readonly status: number;
  readonly requestId: string | null;
  readonly body: any;
}

/**
 * Every change to the tables is explained by an accepted request; a refused one changed nothing.
 * `sent` is the batch's requests and answers, `fuzzKey` the key the generated requests present.
 */
export function checkAttribution(name: string, sent: readonly Sent[], fuzzKey: TestKey, before: Snapshot, after: Snapshot): void {
  const all = diffTables(before, after);
  // The audit table also holds the usage rollup (`usage#` partitions: shared/audit/audit-store.ts),
  // checked on its own below; the rest of it is the audit records.
  const isRollup = (item: Record<string, unknown>) => String(item.pk).startsWith('usage#');
  const diff = {
    ...all,
    audit: {
      added: all.audit.added.filter((r) => !isRollup(r)),
      removed: all.audit.removed.filter((r) => !isRollup(r)),
      changed: all.audit.changed.filter((c) => !isRollup(c.after)),
    },
  };
  const rollupGrowth = [
    ...all.audit.added.filter(isRollup).map((after) => ({ after, before: {} as Record<string, unknown> })),
    ...all.audit.changed.filter((c) => isRollup(c.after)),
  ].reduce((sum, c) => sum + Number(c.after.count) - Number(c.before.count ?? 0), 0);
  const byRequest = new Map(sent.filter((s) => s.requestId).map((s) => [s.requestId!, s]));
  const ok = sent.filter((s) => s.status === 200);
  const isMcp = (s: Sent) => s.request.path === MCP_PATH;
  // REST calls of the fuzz key that passed authentication: the only statuses they can end with (the key
  // is authenticated before the input is validated, so a 400 or 413 of the key is counted too).
  const afterAuth = (s: Sent) => !isMcp(s) && keyAuthenticated(s.request, fuzzKey) && [200, 400, 403, 404, 410, 413].includes(s.status);
  const restKeyCalls = sent.filter(afterAuth);

  // The catalog, and any table not named below (no generated request carries an Idempotency-Key), never change.
  const explained = new Set(['tokens', 'keys', 'counters', 'audit']);
  for (const [table, change] of Object.entries(diff).filter(([t]) => !explained.has(t))) {
    expect({ name, table, ...change }).toEqual({ name, table, added: [], removed: [], changed: [] });
  }
  // Tokens: only those handed out by a 200 create, and only tokens a 200 consume or revoke named.
  const minted = new Set(ok.flatMap((s) => [...JSON.stringify(s.body).matchAll(TOKEN_IN_ANSWER)].map((m) => m[1]!.toLowerCase())));
  expect(diff.tokens.added.filter((t) => !minted.has(String(t.token)))).toEqual([]);
  const named = ok.map((s) => (typeof s.request.body === 'string' ? s.request.body : '')).join('\n');
  expect(diff.tokens.changed.filter((c) => !named.includes(String(c.after.token)))).toEqual([]);
  expect(diff.tokens.removed).toEqual([]);
  // Audit: one record per audited request, with the status the client was given (over MCP a refused
  // tool is a tool error in a 200 answer: its record says the refusal, never a success).
  const misattributed = diff.audit.added.filter((r) => {
    const s = byRequest.get(String(r.request_id));
    const status = Number(r.status);
    // Over MCP a 2xx answer may carry a tool error, audited as its 4xx, and the SDK words some refusals
    // with its own 4xx: the record still never calls a refused request a success.
    const mcpConsistent = s !== undefined && isMcp(s) && (s.status < 300 ? status < 500 : s.status < 500 && status >= 400 && status < 500);
    return !s || (s.status !== status && !mcpConsistent);
  });
  expect(misattributed.map((r) => ({ action: r.action, audit: r.status, reply: byRequest.get(String(r.request_id))?.status }))).toEqual([]);
  const refusedBeforeAuth = sent
    .filter((s) => [400, 401, 405, 413, 414].includes(s.status) && !isMcp(s) && !afterAuth(s))
    .map((s) => s.requestId);
  expect(diff.audit.added.filter((r) => refusedBeforeAuth.includes(String(r.request_id)))).toEqual([]);
  expect([...diff.audit.removed, ...diff.audit.changed]).toEqual([]);
  // The usage rollup counts the refusals the report shows (403, 429) as they are audited: by exactly them.
  expect(all.audit.removed.filter(isRollup)).toEqual([]);
  expect(rollupGrowth).toBe(diff.audit.added.filter((r) => [403, 429].includes(Number(r.status))).length);
  // Counters: the fuzz key's windows count exactly its calls that passed authentication; the key-id
  // sequence moves only for creates that reached authorization (a refused one hands its id back).
  // One counter item per key, day and shard holds the day (`day`) and each minute (`m<minute>`);
  // a count removes minutes long past, so only growth counts.
  const counted = (window: 'minute' | 'day') =>
    [...diff.counters.added.map((c) => ({ after: c, before: {} as Record<string, unknown> })), ...diff.counters.changed]
      .filter((c) => String(c.after.pk).startsWith(`rate#${fuzzKey.record.id}#`))
      .flatMap((c) =>
        Object.keys(c.after)
          .filter((field) => (window === 'day' ? field === 'day' : /^m\d+$/.test(field)))
          .map((field) => Math.max(0, Number(c.after[field]) - Number(c.before[field] ?? 0))),
      )
      .reduce((sum, n) => sum + n, 0);
  // Every counted call is audited once (no faults here): both windows grew by exactly the key's audit records.
  const audited = diff.audit.added.filter((r) => r.key_id === fuzzKey.record.id);
  // (A minute's count leaves its item once the clock is 10 minutes on, and fuzzing moves the clock:
  // the day count is exact, the minutes still seen can only fall short of it.)
  expect(counted('day')).toBe(audited.length);
  expect(counted('minute')).toBeLessThanOrEqual(audited.length);
  const restAudited = audited.filter((r) => !isMcp(byRequest.get(String(r.request_id))!));
  expect(restAudited.map((r) => r.request_id).sort()).toEqual(restKeyCalls.map((s) => s.requestId).sort());
  const otherCounters = [
    ...diff.counters.added.map((after) => ({ after })),
    ...diff.counters.changed,
    ...diff.counters.removed.map((after) => ({ after })),
  ]
    .map((c) => String(c.after.pk))
    .filter((pk) => !pk.startsWith(`rate#${fuzzKey.record.id}#`));
  const createsAuthorized = sent.filter(
    (s) => s.request.method === 'POST' && s.request.path === API && !s.request.query.length && [200, 403].includes(s.status),
  );
  expect(otherCounters.filter((pk) => pk !== 'seq#key_id' || createsAuthorized.length === 0)).toEqual([]);
  // Keys: created, changed or deleted only by a 200 admin answer naming them; the fuzz key only gets its use stamp.
  const adminIds = new Set(ok.map((s) => s.body?.data?.id).filter((id) => typeof id === 'number'));
  const keyChanges = [...diff.keys.added, ...diff.keys.removed, ...diff.keys.changed.map((c) => c.after)];
  // A key's id item (`id#<key id>`: shared/keys/key-id-items.ts) is explained by the same answer as its key.
  const idOf = (k: Record<string, unknown>) => (String(k.key_hash).startsWith('id#') ? Number(String(k.key_hash).slice(3)) : k.id);
  const unexplained = keyChanges.filter(
    (k) => !adminIds.has(idOf(k) as number) && !(k.id === fuzzKey.record.id && onlyUseStamp(diff.keys.changed, k)),
  );
  expect(unexplained).toEqual([]);
}

/** Whether a request reached a key-authenticated operation with exactly the fuzz key (the front's routing rule). */
function keyAuthenticated(request: FuzzRequest, fuzzKey: TestKey): boolean {
  const url = new URL(target(request), 'http://localhost');
  const actions = url.searchParams.getAll('action');
  const match = matchRoute(request.method, url.pathname, actions.length ? actions.join(',') : undefined);
  // HTTP strips the blanks around a header value (fetch does before sending).
  const keys = request.headers.filter(([h]) => h === 'x-api-key').map(([, v]) => v.trim());
  return match.kind === 'route' && match.route.auth === 'apiKey' && keys.join() === fuzzKey.raw;
}

function onlyUseStamp(
  changed: { before: Record<string, unknown>; after: Record<string, unknown> }[],
  key: Record<string, unknown>,
): boolean {
  const change = changed.find((c) => c.after.key_hash === key.key_hash);
  if (!change) return false;
  const { last_used_at: _a, ...after } = change.after;
  const { last_used_at: _b, ...before } = change.before;
  return JSON.stringify(after) === JSON.stringify(before);
}
