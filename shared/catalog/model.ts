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
}
