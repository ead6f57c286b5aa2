import type { Clock } from '../platform/time.js';
import type { Org, Playable, Role } from '../catalog/index.js';
import type { CatalogStore } from '../catalog/index.js';

/** How long a container trusts a game or stream it has read, for create-session. */
export const PLAYABLE_CACHE_MS = 60_000;
/**
 * How stale the play pages' view of a game or stream (and of its org's allowed origins) may be:
 * a change of "Require API Session Token" takes effect on every page within this bound. It keeps a
 * viral game at about one catalog read per container and 5 s instead of one per view (a catalog
 * item takes 3,000 strong or 6,000 eventual reads a second). Tokens are never cached: consumption
 * and revocation act at once.
 */
export const PLAY_CATALOG_STALENESS_MS = 5_000;
/** Entries kept at most; the oldest goes first. */
const PLAYABLE_CACHE_ENTRIES = 10_000;

/**
 * The catalog as create-session reads it: games and streams found are remembered per container for
 * {@link PLAYABLE_CACHE_MS}, so a warm create-session reads only the key (one read instead of two).
 *
 * Safe because create-session asks only two things of a game or stream, and both never change once
 * true: that it exists (games and streams are never deleted) and which organization owns it
 * (ownership never moves). The play pages, which need the mutable "Require API Session Token"
 * setting, use it with {@link PLAY_CATALOG_STALENESS_MS} and `orgs` (the embed page's allowed
 * origins): a bounded staleness, documented. Unknown ids are not remembered, so a game created a
 * moment ago is found by the very next call. Memberships (admin authorization) pass straight
 * through, and API keys are never cached anywhere: a revocation must act on the very next call.
 */
export class PlayableCache implements CatalogStore {
  private readonly entries = new Map<string, { readonly value: Playable | Org; readonly until: number }>();

  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly orgs: boolean;

  /**
   * @param options `ttlMs` (default {@link PLAYABLE_CACHE_MS}), `maxEntries` (default
   *   {@link PLAYABLE_CACHE_ENTRIES}), `orgs`: also remember orgs (the play pages; admin
   *   authorization reads them fresh)
   */
  constructor(
    private readonly catalog: CatalogStore,
    private readonly clock: Clock,
    options: { readonly ttlMs?: number; readonly maxEntries?: number; readonly orgs?: boolean } = {},
  ) {
    this.ttlMs = options.ttlMs ?? PLAYABLE_CACHE_MS;
    this.maxEntries = options.maxEntries ?? PLAYABLE_CACHE_ENTRIES;
    this.orgs = options.orgs ?? false;
  }

  getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined> {
    return this.remembered(`${kind}#${id}`, () => this.catalog.getPlayable(kind, id)) as Promise<Playable | undefined>;
  }

  getOrg(orgId: number): Promise<Org | undefined> {
    if (!this.orgs) return this.catalog.getOrg(orgId);
    return this.remembered(`org#${orgId}`, () => this.catalog.getOrg(orgId)) as Promise<Org | undefined>;
  }

  private async remembered(key: string, read: () => Promise<Playable | Org | undefined>): Promise<Playable | Org | undefined> {
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await read();
    this.entries.delete(key);
    if (value) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, until: now + this.ttlMs });
    }
    return value;
  }

  getRole(orgId: number, subject: string): Promise<Role | undefined> {
    return this.catalog.getRole(orgId, subject);
  }
}
