/**
 * What every way of managing endpoints shares (owners and admins over REST, `webhook-admin.ts`;
 * API keys over MCP, `key-webhooks.ts`): the URL check (the URL's form, then its host resolved),
 * a new endpoint with its secret, an update's changes, and the view that never shows a secret.
 */
import { diffOf, type AuditDiff } from '../audit/index.js';
import { isoTime } from '../platform/time.js';
import { InvalidInput } from '../platform/errors.js';
import type { HostLookup } from '../platform/services.js';
import { checkResolved, checkUrl, type Deployment } from './addresses.js';
import type { WebhookChanges, WebhookRecord } from './model.js';
import type { SecretSealer } from './ports.js';
import type { CreateWebhookBody, EndpointFilter, UpdateWebhookBody, WebhookView } from './schemas.js';
import { normalizedFilter } from './endpoint-filter.js';
import { sealingContext } from './secret-sealer.js';
import { generateSecret } from './signing.js';
import { resolveHost } from './sender.js';

/** The fields an update may change, in the order its audit record lists them. */
const CHANGEABLE = ['url', 'events', 'description', 'filter', 'is_active'] as const;

/** The URL as given, when `checkUrl` accepts it. @throws InvalidInput on `url` */
export function checkedUrl(url: string, deployment: Deployment): string {
  const checked = checkUrl(url, deployment);
  if (!checked.ok) throw new InvalidInput(`url: ${checked.reason}`, { param: 'url' });
  return url;
}

/** How long a registration waits for the URL's host to resolve (beyond it, the URL is accepted: see {@link resolvedUrl}). */
const REGISTRATION_LOOKUP_MS = 3_000;

/**
 * The URL (already through {@link checkedUrl}) once its host resolves only to addresses an attempt
 * may use: the rule every attempt applies (`checkResolved`), so a name that points inside (`vm`
 * to 127.0.0.1, a private or metadata address) is refused when it is registered rather than at
 * every attempt after. A name that does not exist is refused too (a mistyped host, which no attempt
 * could reach). A resolver that fails or is slow is the service's trouble, not the caller's: the URL
 * is accepted, and the check at every attempt still refuses whatever it would resolve to then
 * (docs/decisions.md#webhook-addresses). @throws InvalidInput on `url`
 */
export async function resolvedUrl(url: string, deployment: Deployment, lookup: HostLookup): Promise<string> {
  const checked = checkUrl(url, deployment);
  if (!checked.ok) throw new InvalidInput(`url: ${checked.reason}`, { param: 'url' });
  const raw = checked.url.hostname;
  const host = raw.startsWith('[') ? raw.slice(1, -1) : raw;
  const resolution = await resolveHost(host, lookup, REGISTRATION_LOOKUP_MS);
  if (!resolution.ok) {
    if (resolution.noSuchHost) throw new InvalidInput(`url: ${host} does not resolve (no such host)`, { param: 'url' });
    return url;
  }
  const verdict = checkResolved(resolution.addresses, checked.expect);
  if (!verdict.ok) throw new InvalidInput(`url: ${host} ${verdict.reason}`, { param: 'url' });
  return url;
}

/**
 * A new endpoint `id` of the org, active, with a fresh secret (returned, and sealed in the record);
 * its filter as the caller decided it (`endpoint-filter.ts`), bound to `key_id` when a key created it.
 */
export function newEndpoint(
  input: Omit<CreateWebhookBody, 'url' | 'filter'> & {
    readonly url: string;
    readonly filter: EndpointFilter | null;
    readonly key_id: number | null;
  },
  id: number,
  nowMs: number,
  sealer: SecretSealer,
): { record: WebhookRecord; secret: string } {
  const now = isoTime(nowMs);
  const secret = generateSecret();
  const record: WebhookRecord = {
    id,
    org_id: input.org_id,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    filter: input.filter,
    key_id: input.key_id,
    is_active: true,
    created_at: now,
    updated_at: now,
    secret_sealed: sealer.seal(secret, sealingContext(input.org_id, id)),
    previous_secret_sealed: null,
    previous_secret_until: null,
  };
  return { record, secret };
}

/**
 * An update's changes (the URL checked, the filter as stored: `normalizedFilter`) and the fields it
 * sets, in audit order. @throws InvalidInput on `url`
 */
export function endpointChanges(
  input: Pick<UpdateWebhookBody, 'url' | 'events' | 'description' | 'filter' | 'is_active'>,
  deployment: Deployment,
): { changes: WebhookChanges; fields: (keyof WebhookChanges)[] } {
  const changes: WebhookChanges = {
    ...(input.url !== undefined && { url: checkedUrl(input.url, deployment) }),
    ...(input.events !== undefined && { events: input.events }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.filter !== undefined && { filter: normalizedFilter(input.filter) }),
    ...(input.is_active !== undefined && { is_active: input.is_active }),
  };
  return { changes, fields: CHANGEABLE.filter((f) => changes[f] !== undefined) };
}

/** An endpoint as managers see it: never a secret, sealed or not. */
export function webhookView(record: WebhookRecord): WebhookView {
  return {
    id: record.id,
    org_id: record.org_id,
    url: record.url,
    events: [...record.events],
    description: record.description,
    filter: record.filter ?? null,
    key_id: record.key_id ?? null,
    is_active: record.is_active,
    failing_since: record.failing_since ?? null,
    paused_at: record.paused_at ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/**
 * The audit diff of an endpoint's change: a filter's lists as two fields (`filter.game_ids`,
 * `filter.stream_ids`), each a list of ids or null, as the audit record's values are.
 */
export function endpointDiff(before: WebhookChanges, after: WebhookChanges, fields: readonly (keyof WebhookChanges)[]): AuditDiff {
  const flat = ({ filter, ...rest }: WebhookChanges) => ({
    ...rest,
    'filter.game_ids': filter?.game_ids ?? null,
    'filter.stream_ids': filter?.stream_ids ?? null,
  });
  const named = fields.flatMap((f) => (f === 'filter' ? (['filter.game_ids', 'filter.stream_ids'] as const) : [f]));
  return diffOf(flat(before), flat(after), named);
}
