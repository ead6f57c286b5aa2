/**
 * The operations the benchmark measures, each as "make one request" against the local front. What
 * a request needs that is used up (an active token for consume and revoke, a key for delete) is made
 * in `prepare`, outside the measured time, from pools refilled in batches.
 */
import { routes } from '../../shared/routes.js';
import { API_PATH } from '../../shared/platform/route.js';
import type { BenchStack } from './harness.js';
import type { BenchRequest, BenchResponse } from './http.js';

/** One measured operation. */
export interface BenchOperation {
  /** The name in the table and the JSON line (snake_case). */
  readonly name: string;
  /** The routes-table operation it calls. */
  readonly operation: string;
  /** The Lambda function serving it. */
  readonly fn: string;
  /** The status a correct answer has. */
  readonly status: number;
  /** Build one request (not measured). */
  prepare(): Promise<BenchRequest>;
  /** See the answer (not measured), e.g. to keep a created key for the delete. */
  done?(response: BenchResponse): void;
}

/** A create-session body of typical size. */
export const CREATE_BODY = { game_id: 101, external_ref: 'order-4711', metadata: { campaign: 'bench', user: 'u-123' } };

/** Tokens, minted through the front in parallel batches whenever the pool runs dry. */
export class TokenPool {
  private readonly tokens: string[] = [];
  constructor(
    private readonly stack: BenchStack,
    private readonly batch = 64,
  ) {}

  async take(): Promise<string> {
    if (this.tokens.length === 0) this.tokens.push(...(await mintTokens(this.stack, this.batch)));
    return this.tokens.pop()!;
  }
}

/** Mint `count` tokens, 8 at a time. */
export async function mintTokens(stack: BenchStack, count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, count - out.length) }, () =>
        stack.http.send({
          method: 'POST',
          path: `${API_PATH}?action=create-session`,
          headers: { 'x-api-key': stack.apiKey },
          body: CREATE_BODY,
        }),
      ),
    );
    for (const r of batch) {
      if (r.status !== 200) throw new Error(`minting a token failed: ${r.status} ${r.body}`);
      out.push((JSON.parse(r.body) as { data: { token: string } }).data.token);
    }
  }
  return out;
}

/** Every operation of this service the benchmark measures (MCP `create_session` when the server exists). */
export async function benchOperations(stack: BenchStack): Promise<BenchOperation[]> {
  const { apiKey, bearer, http } = stack;
  const consumable = new TokenPool(stack);
  const revocable = new TokenPool(stack);
  const playable = new TokenPool(stack);
  // A token that stays active: validate and the play pages only read it.
  const [standing] = await mintTokens(stack, 1);
  // Key management runs in org 2 (globex) where it creates and deletes, so the list of org 1 stays
  // the same size all run long; update toggles a key of its own.
  const created: number[] = [];
  const createKey = (): BenchRequest => ({
    method: 'POST',
    path: API_PATH,
    headers: { authorization: bearer.globex },
    body: { org_id: 2, name: 'bench' },
  });
  const target = await http.send(createKey());
  const updatable = (JSON.parse(target.body) as { data: { id: number } }).data.id;
  let active = true;

  const ops: BenchOperation[] = [
    {
      name: 'create_session',
      operation: 'create-session',
      fn: 'create-session',
      status: 200,
      prepare: async () => ({
        method: 'POST',
        path: `${API_PATH}?action=create-session`,
        headers: { 'x-api-key': apiKey },
        body: CREATE_BODY,
      }),
    },
    {
      name: 'validate_session',
      operation: 'validate-session',
      fn: 'validate-session',
      status: 200,
      prepare: async () => ({ method: 'GET', path: `${API_PATH}?action=validate-session&token=${standing}` }),
    },
    {
      name: 'consume_session',
      operation: 'consume-session',
      fn: 'consume-session',
      status: 200,
      prepare: async () => ({
        method: 'POST',
        path: `${API_PATH}?action=consume-session`,
        body: { token: await consumable.take(), player_uuid: 'p-1' },
      }),
    },
    {
      name: 'revoke_session',
      operation: 'revoke-session',
      fn: 'revoke-session',
      status: 200,
      prepare: async () => ({
        method: 'POST',
        path: `${API_PATH}?action=revoke-session`,
        headers: { 'x-api-key': apiKey },
        body: { token: await revocable.take() },
      }),
    },
    {
      name: 'list_keys',
      operation: 'list-keys',
      fn: 'list-keys',
      status: 200,
      prepare: async () => ({ method: 'GET', path: `${API_PATH}?org_id=1`, headers: { authorization: bearer.acme } }),
    },
    {
      name: 'create_key',
      operation: 'create-key',
      fn: 'create-key',
      status: 200,
      prepare: async () => createKey(),
      done: (r) => void created.push((JSON.parse(r.body) as { data: { id: number } }).data.id),
    },
    {
      name: 'update_key',
      operation: 'update-key',
      fn: 'update-key',
      status: 200,
      prepare: async () => {
        active = !active;
        return {
          method: 'PATCH',
          path: API_PATH,
          headers: { authorization: bearer.globex },
          body: { id: updatable, org_id: 2, is_active: active },
        };
      },
    },
    {
      name: 'delete_key',
      operation: 'delete-key',
      fn: 'delete-key',
      status: 200,
      prepare: async () => {
        const id = created.pop() ?? (JSON.parse((await http.send(createKey())).body) as { data: { id: number } }).data.id;
        return { method: 'DELETE', path: `${API_PATH}?id=${id}&org_id=2`, headers: { authorization: bearer.globex } };
      },
    },
    {
      name: 'audit_log',
      operation: 'audit-log',
      fn: 'audit-log',
      status: 200,
      prepare: async () => ({
        method: 'GET',
        path: `${API_PATH}?action=audit-log&org_id=1&limit=20`,
        headers: { authorization: bearer.acme },
      }),
    },
    {
      name: 'play_page',
      operation: 'play-game-page',
      fn: 'play-page',
      status: 200,
      prepare: async () => ({ method: 'GET', path: `/play/game/101?session_token=${standing}` }),
    },
    {
      // The play page's script: consume its token and get the play cookie (the browser lifecycle's last step).
      name: 'play_session',
      operation: 'play-session',
      fn: 'play-page',
      status: 200,
      prepare: async () => ({ method: 'POST', path: '/play/session', body: { token: await playable.take() } }),
    },
    {
      name: 'embed_page',
      operation: 'embed-page',
      fn: 'play-page',
      status: 200,
      prepare: async () => ({ method: 'GET', path: `/embed/101?session_token=${standing}` }),
    },
  ];
  const idempotent = await idempotentCreate(stack);
  if (idempotent) ops.splice(1, 0, idempotent);
  const mcp = await mcpCreateSession(stack);
  if (mcp) ops.push(mcp);
  return ops;
}

/**
 * create-session with an `Idempotency-Key` (a new one per request: a first call, not a replay),
 * when the service takes the header; otherwise the benchmark says it is absent.
 */
async function idempotentCreate(stack: BenchStack): Promise<BenchOperation | undefined> {
  let n = 0;
  const op: BenchOperation = {
    name: 'create_session_idempotent',
    operation: 'create-session',
    fn: 'create-session',
    status: 200,
    prepare: async () => ({
      method: 'POST',
      path: `${API_PATH}?action=create-session`,
      headers: { 'x-api-key': stack.apiKey, 'idempotency-key': `bench-${process.pid}-${n++}` },
      body: CREATE_BODY,
    }),
  };
  const probe = await stack.http.send(await op.prepare());
  if (probe.status !== 200) {
    process.stderr.write(
      `bench: create-session with Idempotency-Key not measured (answered ${probe.status}: ${probe.body.slice(0, 200)})\n`,
    );
    return undefined;
  }
  return op;
}

/**
 * MCP `create_session` over the streamable HTTP transport (JSON-RPC `tools/call`), when the routes
 * table has an MCP function and it answers a first call; otherwise the benchmark says it is absent.
 */
async function mcpCreateSession(stack: BenchStack): Promise<BenchOperation | undefined> {
  const route = routes.find((r) => (r.function as string) === 'mcp');
  if (!route) return undefined;
  const headers: Record<string, string> = { 'x-api-key': stack.apiKey, accept: 'application/json, text/event-stream' };
  const rpc = (id: number, method: string, params: unknown): BenchRequest => ({
    method: 'POST',
    path: route.path,
    headers,
    body: { jsonrpc: '2.0', id, method, params },
  });
  // Sessions are optional in the transport: keep one if the server hands it out.
  const init = await stack.http.send(
    rpc(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } }),
  );
  const session = init.headers['mcp-session-id'];
  if (typeof session === 'string') headers['mcp-session-id'] = session;
  await stack.http.send({ method: 'POST', path: route.path, headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  let id = 1;
  const op: BenchOperation = {
    name: 'mcp_create_session',
    operation: route.operation,
    fn: route.function,
    status: 200,
    prepare: async () => rpc(id++, 'tools/call', { name: 'create_session', arguments: { game_id: 101 } }),
  };
  const probe = await stack.http.send(await op.prepare());
  if (probe.status !== 200 || /"isError"\s*:\s*true|"error"\s*:\s*\{/.test(probe.body)) {
    process.stderr.write(`bench: MCP create_session not measured (answered ${probe.status}: ${probe.body.slice(0, 200)})\n`);
    return undefined;
  }
  return op;
}
