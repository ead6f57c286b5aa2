import { diffOf, type AuditDiff } from '../audit/index.js';
import { InvalidInput, NotFound } from '../platform/errors.js';
import type { Effect } from '../keys/index.js';
import type { Playable } from './model.js';
import type { PlayableChanges, PlayableStore } from './ports.js';
import type * as z from 'zod/mini';
import type { GameView, StreamView } from './schemas.js';

/** A game or stream as members and keys see it (MCP tools, REST list-games): id, settings, play page (the schemas' shapes). */
export type PlayableView<K extends Playable['kind'] = Playable['kind']> = K extends 'game'
  ? z.output<typeof GameView>
  : z.output<typeof StreamView>;

/** A game or stream in its members' view; `baseUrl` is the service's public address (no trailing slash). */
export function playableView<K extends Playable['kind']>(playable: Playable & { readonly kind: K }, baseUrl: string): PlayableView<K> {
  // The id's name follows the kind (`game_id`, `stream_id`), which a computed key cannot tell the compiler.
  return {
    [`${playable.kind}_id`]: playable.id,
    name: playable.name,
    require_session_token: playable.require_session_token,
    start: playable.start ?? null,
    play_url: `${baseUrl}/play/${playable.kind}/${playable.id}`,
  } as PlayableView<K>;
}

/** The fields an update may change, in the order a record lists them. */
const CHANGEABLE: readonly (keyof PlayableChanges & string)[] = ['name', 'require_session_token', 'start'];

/** A change made to a playable: how it was and how it is now. */
export interface PlayableUpdate {
  readonly before: Playable;
  readonly after: Playable;
}

/**
 * An organization's own games and streams, as its keys see them through MCP: another
 * organization's game or stream reads exactly like one that does not exist (no probing).
 */
export class OrgCatalog {
  constructor(private readonly store: PlayableStore) {}

  /** Every game or every stream of the organization, by id. */
  async list(orgId: number, kind: Playable['kind']): Promise<Playable[]> {
    const playables = await this.store.listPlayables(orgId, kind);
    return playables.sort((a, b) => a.id - b.id);
  }

  /** One game or stream of the organization. @throws NotFound (absent, or another org's) */
  async get(orgId: number, kind: Playable['kind'], id: number): Promise<Playable> {
    const playable = await this.store.getPlayable(kind, id);
    if (!playable || playable.org_id !== orgId) throw notFound(kind, id);
    return playable;
  }

  /** A game or stream by id, of any organization, or undefined: a read before the key's org is known. */
  peek(kind: Playable['kind'], id: number): Promise<Playable | undefined> {
    return this.store.getPlayable(kind, id);
  }

  /**
   * What an update's audit record says ahead of the write: the fields it sets, and their before
   * (from `seen`, a read of the game or stream; null when it is absent or another org's) and after.
   */
  expectedAudit(orgId: number, seen: Playable | undefined, requested: PlayableChanges): { changes: string[]; diff: AuditDiff | null } {
    const changes = CHANGEABLE.filter((f) => requested[f] !== undefined);
    const diff = seen && seen.org_id === orgId ? diffOf<PlayableChanges>(seen, { ...seen, ...requested }, changes) : null;
    return { changes, diff };
  }

  /**
   * Change a game or stream of the organization, as the effect of a metered call: one conditional
   * write. The game or stream is a shared item (other keys and admins change it, play pages read
   * it), so the write has no undo: the call is counted first and a refused call never touches it.
   * The write's answer (the item before) gives the diff the call's audit record keeps.
   */
  update(orgId: number, kind: Playable['kind'], id: number, requested: PlayableChanges): Effect<PlayableUpdate> {
    const fields = CHANGEABLE.filter((f) => requested[f] !== undefined);
    const changes: PlayableChanges = Object.fromEntries(fields.map((f) => [f, requested[f]]));
    if (fields.length === 0) throw new InvalidInput('Nothing to change: give name, require_session_token or start');
    return {
      run: async () => {
        const before = await this.store.updateInOrg(kind, id, orgId, changes);
        if (!before) throw notFound(kind, id);
        return { before, after: { ...before, ...changes } };
      },
      diff: ({ before, after }) => diffOf<PlayableChanges>(before, after, fields),
    };
  }
}

function notFound(kind: Playable['kind'], id: number): NotFound {
  return new NotFound(`${kind === 'game' ? 'Game' : 'Stream'} ${id} not found`);
}
