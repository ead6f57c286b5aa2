/**
 * The create-session view of the catalog: games and streams found are remembered for a minute per
 * container; unknown ids, orgs and memberships are read every time.
 */
import { describe, expect, test } from '@jest/globals';
import type { Org, Playable, Role } from '../../shared/catalog/model.js';
import { PLAYABLE_CACHE_MS, PlayableCache } from '../../shared/sessions/playable-cache.js';
import type { CatalogStore } from '../../shared/catalog/ports.js';
import { FixedClock } from '../support/fakes.js';

const game = (id: number): Playable => ({
  kind: 'game',
  id,
  org_id: 1,
  org_slug: 'acme',
  name: `Game ${id}`,
  require_session_token: true,
  content_url: '/demo-game/index.html',
});

/** A catalog that counts its reads. */
class CountingCatalog implements CatalogStore {
  readonly reads: string[] = [];
  playables = new Map<string, Playable>([['game#101', game(101)]]);
  async getPlayable(kind: Playable['kind'], id: number): Promise<Playable | undefined> {
    this.reads.push(`${kind}#${id}`);
    return this.playables.get(`${kind}#${id}`);
  }
  async getOrg(orgId: number): Promise<Org | undefined> {
    this.reads.push(`org#${orgId}`);
    return { org_id: orgId, slug: 'acme', name: 'Acme', tier: 'business', allowed_origins: [] };
  }
  async getRole(orgId: number, subject: string): Promise<Role | undefined> {
    this.reads.push(`member#${orgId}#${subject}`);
    return 'admin';
  }
}

describe('PlayableCache', () => {
  test('a game found is read once per minute', async () => {
    const catalog = new CountingCatalog();
    const clock = new FixedClock(1_000_000);
    const cache = new PlayableCache(catalog, clock);
    expect(await cache.getPlayable('game', 101)).toEqual(game(101));
    clock.ms += PLAYABLE_CACHE_MS - 1;
    expect(await cache.getPlayable('game', 101)).toEqual(game(101));
    expect(catalog.reads).toEqual(['game#101']);
    clock.ms += 1;
    await cache.getPlayable('game', 101);
    expect(catalog.reads).toEqual(['game#101', 'game#101']);
  });

  test('an unknown id is not remembered: a game created meanwhile is found by the next call', async () => {
    const catalog = new CountingCatalog();
    const cache = new PlayableCache(catalog, new FixedClock(0));
    expect(await cache.getPlayable('game', 555)).toBeUndefined();
    catalog.playables.set('game#555', game(555));
    expect(await cache.getPlayable('game', 555)).toEqual(game(555));
    expect(catalog.reads).toEqual(['game#555', 'game#555']);
  });

  test('games and streams with the same id are different entries', async () => {
    const catalog = new CountingCatalog();
    const cache = new PlayableCache(catalog, new FixedClock(0));
    await cache.getPlayable('game', 101);
    expect(await cache.getPlayable('stream', 101)).toBeUndefined();
    expect(catalog.reads).toEqual(['game#101', 'stream#101']);
  });

  test('orgs and memberships (admin authorization) are read every time', async () => {
    const catalog = new CountingCatalog();
    const cache = new PlayableCache(catalog, new FixedClock(0));
    await cache.getOrg(1);
    await cache.getOrg(1);
    await cache.getRole(1, 'a');
    await cache.getRole(1, 'a');
    expect(catalog.reads).toEqual(['org#1', 'org#1', 'member#1#a', 'member#1#a']);
  });

  test('the number of entries is bounded: the oldest goes first', async () => {
    const catalog = new CountingCatalog();
    for (const id of [1, 2, 3]) catalog.playables.set(`game#${id}`, game(id));
    const cache = new PlayableCache(catalog, new FixedClock(0), { maxEntries: 2 });
    for (const id of [1, 2, 3, 2, 1]) await cache.getPlayable('game', id);
    expect(catalog.reads).toEqual(['game#1', 'game#2', 'game#3', 'game#1']);
  });
});
