/**
 * Partner code written against the client openapi-fetch builds from the generated types
 * (`openapi-paths.ts`, generated from the served OpenAPI document): what an integrator writes, with
 * every path, parameter, body and answer typed by the document alone. The generated-client test
 * type-checks this file with freshly generated types and runs it against a local stack.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi-paths.js';

/** A client of the service at a base URL, typed by the generated paths. */
export function serviceClient(baseUrl: string): Client<paths> {
  return createClient<paths>({ baseUrl });
}

/** Fail with the error body a call answered (the document's error object, typed). */
function expectData<T>(reply: { data?: T; error?: { error: string; code: string }; response: Response }): T {
  if (reply.data === undefined) throw new Error(`${reply.response.status} ${reply.error?.code}: ${reply.error?.error}`);
  return reply.data;
}

/** What the session lifecycle saw, every field as the generated types give it. */
export interface LifecycleSeen {
  readonly token: string;
  readonly validStatus: 'active' | 'consumed' | 'expired' | 'revoked';
  readonly sessionId: number;
  readonly consumedAgain: { status: number; code: string | undefined };
  readonly revoked: 'active' | 'consumed' | 'expired' | 'revoked';
}

/** Mint → validate → consume (then once more: 410) → revoke another token, through the generated client. */
export async function sessionLifecycle(client: Client<paths>, apiKey: string, gameId: number): Promise<LifecycleSeen> {
  const headers = { 'x-api-key': apiKey };
  const created = expectData(await client.POST('/api/org-api-keys/create-session', { headers, body: { game_id: gameId } }));
  const token: string = created.data.token;
  const validated = expectData(await client.GET('/api/org-api-keys/validate-session', { params: { query: { token } } }));
  const consumed = expectData(await client.POST('/api/org-api-keys/consume-session', { body: { token } }));
  const again = await client.POST('/api/org-api-keys/consume-session', { body: { token } });
  const other = expectData(
    await client.POST('/api/org-api-keys/create-session', {
      headers,
      params: { header: { 'idempotency-key': `lifecycle-${token}` } },
      body: { game_id: gameId, external_ref: 'order-1', metadata: { level: 3 } },
    }),
  );
  const revoked = expectData(await client.POST('/api/org-api-keys/revoke-session', { headers, body: { token: other.data.token } }));
  return {
    token,
    validStatus: validated.data.status,
    sessionId: consumed.data.session_id,
    consumedAgain: { status: again.response.status, code: again.error?.code },
    revoked: revoked.data.status,
  };
}

/** What the key CRUD saw. */
export interface KeyCrudSeen {
  readonly created: { id: number; key: string; name: string };
  readonly listed: boolean;
  readonly deactivated: boolean;
  readonly rotatedTo: number | null;
  readonly auditActions: string[];
  readonly deleted: number[];
}

/** Create → list → update (revoke) → reactivate → rotate → audit log → delete both, as an org admin, through the generated client. */
export async function keyCrud(client: Client<paths>, authorization: string, orgId: number): Promise<KeyCrudSeen> {
  const headers = { authorization };
  const created = expectData(await client.POST('/api/org-api-keys', { headers, body: { org_id: orgId, name: 'Generated client' } }));
  const id = created.data.id;
  const listed = expectData(await client.GET('/api/org-api-keys', { headers, params: { query: { org_id: String(orgId) } } }));
  const revoked = expectData(await client.PATCH('/api/org-api-keys', { headers, body: { id, org_id: orgId, is_active: false } }));
  expectData(await client.PATCH('/api/org-api-keys', { headers, body: { id, org_id: orgId, is_active: true } }));
  const rotated = expectData(
    await client.POST('/api/org-api-keys/rotate-key', { headers, body: { id, org_id: orgId, grace_period_minutes: 0 } }),
  );
  const audit = expectData(await client.GET('/api/org-api-keys/audit-log', { headers, params: { query: { org_id: String(orgId) } } }));
  const deleted: number[] = [];
  for (const key of [id, rotated.data.id]) {
    const gone = expectData(
      await client.DELETE('/api/org-api-keys', { headers, params: { query: { id: String(key), org_id: String(orgId) } } }),
    );
    deleted.push(gone.data.id);
  }
  return {
    created: { id, key: created.data.key, name: created.data.name },
    listed: listed.data.some((key) => key.id === id),
    deactivated: !revoked.data.is_active,
    rotatedTo: rotated.data.previous.rotated_to,
    auditActions: audit.data.records.map((record) => record.action),
    deleted,
  };
}
