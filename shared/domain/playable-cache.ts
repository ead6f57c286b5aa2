import type { Clock } from './clock.js';
import type { Org, Playable, Role } from './model.js';
import type { CatalogStore } from './ports.js';

/** How long a container trusts a game or stream it has read (create-session only). */
export const PLAYABLE_CACHE_MS = 60_000;
/** Entries kept at most; the oldest goes first. */
export const PLAYABLE_CACHE_ENTRIES = 10_000;

/**
 * The catalog as create-session reads it: games and streams found are remembered per container for
 * {@link PLAYABLE_CACHE_MS}, so a warm create-session reads only the key (one read instead of two).
 *
 * Safe because create-session asks only two things of a game or stream, and both never change once
 * true: that it exists (games and streams are never deleted) and which organization owns it
 * (ownership never moves). The mutable parts (the "Require API Session Token" setting, the name)
 * matter to the play pages, which read the catalog themselves, fresh, every time. Unknown ids are
 * not remembered, so a game created a moment ago is found by the very next call. Memberships and
 * orgs (admin authorization) pass straight through, and API keys are never cached anywhere: a
 * revocation must act on the very next call.
 */
export class PlayableCache implements CatalogStore {
  private readonly entries = new Map<string, { readonly playable: Playable; readonly until: number }>();

  constructor(
    private readonly catalog: CatalogStore,
    private readonly clock: Clock,
    private readonly ttlMs = PLAYABLE_CACHE_MS,
    private readonly maxEntries = PLAYABLE_CACHE_ENTRIES,
  ) {}

  async getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined> {
    const key = `${kind}#${id}`;
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.playable;
    const playable = await this.catalog.getPlayable(kind, id);
    this.entries.delete(key);
    if (playable) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { playable, until: now + this.ttlMs });
    }
    return playable;
  }

  getOrg(orgId: number): Promise<Org | undefined> {
    return this.catalog.getOrg(orgId);
  }

  getRole(orgId: number, subject: string): Promise<Role | undefined> {
    return this.catalog.getRole(orgId, subject);
  }
}
