import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from './admin-access.js';
import type { AdminAudit, AdminCall } from '../audit/index.js';
import { NotFound } from '../platform/errors.js';
import type { CallContext } from '../platform/call.js';
import type { Playable } from './model.js';
import { playableView, type OrgCatalog, type PlayableView } from './org-catalog.js';
import type { PlayableChanges } from './ports.js';

export interface CatalogAdminDeps {
  readonly access: AdminAccess;
  readonly catalog: OrgCatalog;
  readonly audit: AdminAudit;
  /** The service's public address, without a trailing slash (the play pages' links). */
  readonly baseUrl: string;
}

/** An update of one game or stream, as an org member asks for it. */
export interface PlayableUpdateInput extends PlayableChanges {
  readonly org_id: number;
  readonly id: number;
}

/**
 * An organization's games and streams for its members (bearer): the same domain as the MCP catalog
 * tools (`OrgCatalog`), authorized by role (docs/decisions.md#organization-roles) instead of by key
 * scope. A change is audited like a key change: the member's subject as actor, the game or stream,
 * what changed before and after. Listing is allowed at any tier (an org keeps seeing its own games);
 * a change needs Business or higher, like the MCP tools' (keys below Business are refused).
 */
export class CatalogAdmin {
  constructor(private readonly deps: CatalogAdminDeps) {}

  /** The organization's games and streams, by id (every member). */
  async list(admin: AdminIdentity, orgId: number): Promise<{ games: PlayableView<'game'>[]; streams: PlayableView<'stream'>[] }> {
    const { catalog } = this.deps;
    const {
      value: [games, streams],
    } = await this.deps.access.authorize(admin, orgId, () => Promise.all([catalog.list(orgId, 'game'), catalog.list(orgId, 'stream')]), {
      permission: 'catalogRead',
      anyTier: true,
    });
    return {
      games: games.map((p) => this.view(p as Playable & { kind: 'game' })),
      streams: streams.map((p) => this.view(p as Playable & { kind: 'stream' })),
    };
  }

  /**
   * Rename a game or stream, or turn its "Require API Session Token" setting on or off (owners,
   * admins, editors). The game or stream is read alongside the authorization (its before values
   * for the record), then changed with one conditional write beside its audit record: two round trips.
   * @throws Forbidden, TierRequired, NotFound (absent, or another org's: audited as 404)
   */
  async update<K extends Playable['kind']>(
    admin: AdminIdentity,
    kind: K,
    input: PlayableUpdateInput,
    call: CallContext,
  ): Promise<PlayableView<K>> {
    const { org_id: orgId, id } = input;
    const adminCall: AdminCall = { admin, orgId, call, action: `update-${kind}` };
    const effect = this.deps.catalog.update(orgId, kind, id, input);
    const target = kind === 'game' ? { game_id: id } : { stream_id: id };
    const { value: seen } = await this.deps.access
      .authorize(admin, orgId, () => this.deps.catalog.get(orgId, kind, id), { permission: 'catalogWrite' })
      .catch(async (refusal: unknown) => {
        // Only an authorized call reaches the read's own refusal: the record keeps the id asked for.
        if (refusal instanceof NotFound) await this.deps.audit.note(adminCall, 404, target);
        throw refusal;
      });
    const { changes, diff } = this.deps.catalog.expectedAudit(orgId, seen, input);
    // The write's own answer says what the game was (effect.diff): a change made since the read shows there.
    const { after } = await this.deps.audit.audited(adminCall, { ...target, changes, diff }, () => effect.run(), effect.diff);
    return this.view(after as Playable & { kind: K });
  }

  private view<K extends Playable['kind']>(playable: Playable & { readonly kind: K }): PlayableView<K> {
    return playableView(playable, this.deps.baseUrl);
  }
}
