/**
 * The fixed demo seed. Ids matter: tests and later features rely on them.
 * org 1 `acme` (business): games 101 (token required), 102 (open); streams 201 (required), 202 (open)
 * org 2 `globex` (enterprise): game 301, stream 401 (both required)
 * org 3 `tiny` (free): game 501
 */
import { generateRawKey, newKeyRecord, type KeySettings } from '../../shared/keys/api-keys.js';
import { IdAllocator } from '../../shared/platform/ids.js';
import { hashApiKey } from '../../shared/keys/credential.js';
import { TOOL_SCOPES } from '../../shared/keys/mcp-scopes.js';
import type { Org, Playable, Role } from '../../shared/catalog/model.js';
import type { Services } from './all-services.js';

/** `allowed_origins`: who may frame the org's embed pages (acme: anyone, as a demo). */
const DEMO_ORGS: readonly Org[] = [
  { org_id: 1, slug: 'acme', name: 'Acme Games', tier: 'business', allowed_origins: ['*'] },
  {
    org_id: 2,
    slug: 'globex',
    name: 'Globex',
    tier: 'enterprise',
    allowed_origins: ['https://globex.example', 'https://*.globex.example'],
  },
  { org_id: 3, slug: 'tiny', name: 'Tiny Studio', tier: 'free' },
];

export const DEMO_USERS: readonly { subject: string; org_id: number; role: Role }[] = [
  { subject: 'acme-admin', org_id: 1, role: 'admin' },
  { subject: 'acme-member', org_id: 1, role: 'editor' },
  // Read-only members, so the console's read-only pages can be shown: usage (analyst), games only (viewer).
  { subject: 'acme-analyst', org_id: 1, role: 'analyst' },
  { subject: 'acme-viewer', org_id: 1, role: 'viewer' },
  { subject: 'globex-admin', org_id: 2, role: 'admin' },
  { subject: 'tiny-admin', org_id: 3, role: 'admin' },
];

/** Path of the built-in demo game the seeded playables point at (served by the local front). */
export const DEMO_GAME_PATH = '/demo-game/index.html';

function playable(kind: Playable['kind'], id: number, org: Org, name: string, required: boolean): Playable {
  return { kind, id, org_id: org.org_id, org_slug: org.slug, name, require_session_token: required, content_url: DEMO_GAME_PATH };
}

const [acme, globex, tiny] = DEMO_ORGS as [Org, Org, Org];
export const DEMO_PLAYABLES: readonly Playable[] = [
  playable('game', 101, acme, 'Acme Spin-to-Win', true),
  playable('game', 102, acme, 'Acme Memory (open)', false),
  playable('stream', 201, acme, 'Acme Live Quiz', true),
  playable('stream', 202, acme, 'Acme Open Stream', false),
  playable('game', 301, globex, 'Globex Trivia', true),
  playable('stream', 401, globex, 'Globex Launch Stream', true),
  playable('game', 501, tiny, 'Tiny Puzzle', false),
];

/**
 * Write the catalog (orgs, memberships, games, streams) unless it is already there. A data folder of
 * an earlier run keeps its orgs, games and streams as they are (a toggled game stays toggled), but
 * gets every demo membership it lacks, and its memberships the index keys list-orgs finds them by:
 * otherwise demo users added since, and the org picker, would not work on it.
 */
export async function seedCatalog(services: Services): Promise<void> {
  const { catalog } = services.stores;
  const fresh = !(await catalog.getOrg(1));
  await Promise.all([
    ...(fresh ? [...DEMO_ORGS.map((o) => catalog.putOrg(o)), ...DEMO_PLAYABLES.map((p) => catalog.putPlayable(p))] : []),
    ...DEMO_USERS.map((u) => catalog.ensureMember(u.org_id, u.subject, u.role)),
  ]);
}

/** The demo MCP key of org 1: every scope this service has tools for (from THE scope→tool table). */
export const DEMO_MCP_KEY: KeySettings = { name: 'Demo MCP key', mcp_scopes: [...TOOL_SCOPES] };

/**
 * A demo key of org 1 (by default unscoped, default limits). `known` is the raw key from an earlier
 * run's credentials file: kept if it still authenticates, otherwise a new key is minted. The raw key
 * is returned for the credentials file and never written to the database.
 */
export async function ensureDemoKey(
  services: Services,
  known: string | undefined,
  settings: KeySettings = { name: 'Demo key' },
): Promise<string> {
  if (known && (await services.stores.keys.getByHash(hashApiKey(known)))) return known;
  const raw = generateRawKey();
  const id = await new IdAllocator(services.stores.sequences, { sequence: 'key_id', blockSize: 1 }).nextId();
  await services.stores.keys.create(newKeyRecord(raw, id, acme, settings, services.clock.now()));
  return raw;
}
