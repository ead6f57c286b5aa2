/**
 * Test helpers for the admin API (bearer): calls of the key-management and audit-log operations as
 * a given subject, with tokens signed by the local identity provider's key (`stack.issuer`).
 */
import type { Stack } from './local-stack.js';

type Reply = Awaited<ReturnType<Stack['request']>>;

/** The admin API of a stack, called as `subject` (a bearer token signed with the provider's key). */
export interface AdminApi {
  list(orgId: number | string, as?: string): Promise<Reply>;
  create(body: unknown, as?: string): Promise<Reply>;
  update(body: unknown, as?: string): Promise<Reply>;
  remove(id: number | string, orgId: number | string, as?: string): Promise<Reply>;
  /** `POST ?action=rotate-key` with this body. */
  rotate(body: unknown, as?: string): Promise<Reply>;
  audit(params: Record<string, string | number>, as?: string): Promise<Reply>;
  /** `GET ?action=usage` with these parameters. */
  usage(params: Record<string, string | number>, as?: string): Promise<Reply>;
  /** `GET ?action=list-orgs`: the subject's organizations. */
  listOrgs(as?: string): Promise<Reply>;
  /** `GET ?action=list-games&org_id=`. */
  listGames(orgId: number | string, as?: string): Promise<Reply>;
  /** `PATCH ?action=update-game` or `update-stream` with this body. */
  updatePlayable(kind: 'game' | 'stream', body: unknown, as?: string): Promise<Reply>;
  /** `GET ?action=list-webhooks&org_id=`. */
  listWebhooks(orgId: number | string, as?: string): Promise<Reply>;
  /** `POST ?action=create-webhook` with this body. */
  createWebhook(body: unknown, as?: string): Promise<Reply>;
  /** `PATCH ?action=update-webhook` with this body. */
  updateWebhook(body: unknown, as?: string): Promise<Reply>;
  /** `DELETE ?action=delete-webhook&id=&org_id=`. */
  deleteWebhook(id: number | string, orgId: number | string, as?: string): Promise<Reply>;
  /** `POST ?action=rotate-webhook-secret` with this body. */
  rotateWebhookSecret(body: unknown, as?: string): Promise<Reply>;
  /** `GET ?action=list-webhook-deliveries` with these parameters. */
  listWebhookDeliveries(params: Record<string, string | number>, as?: string): Promise<Reply>;
  /** `POST ?action=retry-webhook-delivery` with this body. */
  retryWebhookDelivery(body: unknown, as?: string): Promise<Reply>;
  /** `POST ?action=test-webhook` with this body. */
  testWebhook(body: unknown, as?: string): Promise<Reply>;
  /** `POST ?action=recover-webhook` with this body. */
  recoverWebhook(body: unknown, as?: string): Promise<Reply>;
  /** `Authorization` header value for a subject. */
  bearer(as: string): Promise<string>;
}

const API = '/api/org-api-keys';

/** Admin API helpers; `defaultSubject` is used when a call names none. */
export function adminApi(stack: Stack, defaultSubject = 'acme-admin'): AdminApi {
  const tokens = new Map<string, Promise<string>>();
  const bearer = (as: string) => {
    if (!tokens.has(as)) tokens.set(as, stack.issuer.sign(as));
    return tokens.get(as)!.then((t) => `Bearer ${t}`);
  };
  const call = async (method: string, path: string, as: string, body?: unknown) =>
    stack.request(path, {
      method,
      headers: { authorization: await bearer(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const get = (action: string, params: Record<string, string | number>, as: string) =>
    call(
      'GET',
      `${API}?${new URLSearchParams({ action, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })}`,
      as,
    );
  return {
    bearer,
    usage: (params, as = defaultSubject) => get('usage', params, as),
    listOrgs: (as = defaultSubject) => get('list-orgs', {}, as),
    listGames: (orgId, as = defaultSubject) => get('list-games', { org_id: orgId }, as),
    updatePlayable: (kind, body, as = defaultSubject) => call('PATCH', `${API}?action=update-${kind}`, as, body),
    list: (orgId, as = defaultSubject) => call('GET', `${API}?org_id=${orgId}`, as),
    create: (body, as = defaultSubject) => call('POST', API, as, body),
    update: (body, as = defaultSubject) => call('PATCH', API, as, body),
    remove: (id, orgId, as = defaultSubject) => call('DELETE', `${API}?id=${id}&org_id=${orgId}`, as),
    rotate: (body, as = defaultSubject) => call('POST', `${API}?action=rotate-key`, as, body),
    listWebhooks: (orgId, as = defaultSubject) => get('list-webhooks', { org_id: orgId }, as),
    createWebhook: (body, as = defaultSubject) => call('POST', `${API}?action=create-webhook`, as, body),
    updateWebhook: (body, as = defaultSubject) => call('PATCH', `${API}?action=update-webhook`, as, body),
    deleteWebhook: (id, orgId, as = defaultSubject) => call('DELETE', `${API}?action=delete-webhook&id=${id}&org_id=${orgId}`, as),
    rotateWebhookSecret: (body, as = defaultSubject) => call('POST', `${API}?action=rotate-webhook-secret`, as, body),
    listWebhookDeliveries: (params, as = defaultSubject) => get('list-webhook-deliveries', params, as),
    retryWebhookDelivery: (body, as = defaultSubject) => call('POST', `${API}?action=retry-webhook-delivery`, as, body),
    testWebhook: (body, as = defaultSubject) => call('POST', `${API}?action=test-webhook`, as, body),
    recoverWebhook: (body, as = defaultSubject) => call('POST', `${API}?action=recover-webhook`, as, body),
    audit: (params, as = defaultSubject) =>
      call(
        'GET',
        `${API}?${new URLSearchParams({ action: 'audit-log', ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })}`,
        as,
      ),
  };
}
