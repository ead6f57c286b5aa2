/** Organizations and their games and streams, as the domain works with them. */

export const TIERS = ['free', 'pro', 'business', 'enterprise'] as const;

export type Tier = (typeof TIERS)[number];

export const ROLES = ['owner', 'admin', 'editor', 'analyst', 'viewer'] as const;

export type Role = (typeof ROLES)[number];

/** Business or higher may use the API (spec: Authentication rule 3). */
export function tierAllowsApi(tier: Tier): boolean {
  return tier === 'business' || tier === 'enterprise';
}

/** An organization of the catalog. */
export interface Org {
  readonly org_id: number;
  readonly slug: string;
  readonly name: string;
  readonly tier: Tier;
  /**
   * Origins (`https://partner.example`, `https://*.partner.example`, or `*`) whose pages may frame
   * the org's `/embed/<id>` pages (CSP `frame-ancestors`). Absent or empty: nobody may.
   */
  readonly allowed_origins?: readonly string[];
  /** Bumped by every tier change (absent: 0); keys copy it with the tier, so an older copy never overwrites a newer one. */
  readonly tier_version?: number;
}

/**
 * How a play page that consumes a token starts the game: `click` on a person's click or key press on
 * its Play button (a link scanner that runs the page's script consumes nothing), `auto` as soon as
 * the page's script runs (a page a partner frames in its own, whose player already chose to play).
 * docs/play-pages.md#starting-the-game.
 */
export const START_MODES = ['click', 'auto'] as const;

export type StartMode = (typeof START_MODES)[number];

/** The start mode a page shape has when its game or stream sets none: `auto` for `/embed`, else `click`. */
export function startModeOf(setting: StartMode | null | undefined, embed: boolean): StartMode {
  return setting ?? (embed ? 'auto' : 'click');
}

/** A game or a stream of the catalog: what a session token is minted for. */
export interface Playable {
  readonly kind: 'game' | 'stream';
  readonly id: number;
  readonly org_id: number;
  readonly org_slug: string;
  readonly name: string;
  /** The "Require API Session Token" setting of the Configuration tab. */
  readonly require_session_token: boolean;
  /** What the play page shows. */
  readonly content_url: string;
  /** How its pages start the game ({@link START_MODES}); absent or null: by page shape ({@link startModeOf}). */
  readonly start?: StartMode | null;
}
