/** The report stores the usage domain needs, as ports. */
import { type TokenRecord } from '../sessions/index.js';

/** A token as the session report counts it: who made it, for what, when, and its status. */
export type ReportedToken = Pick<
  TokenRecord,
  'token' | 'org_id' | 'key_id' | 'game_id' | 'stream_id' | 'status' | 'created_at' | 'expires_at'
>;

/** What the session report reads of the tokens (eventually consistent). */
export interface TokenReportStore {
  /**
   * The tokens an organization created from `from` to `to` (UTC days, inclusive): at most `limit`
   * (`more` when there are others), `cut` when the request's deadline stopped the read.
   */
  tokensCreated(orgId: number, from: string, to: string, limit: number): Promise<TokenReads>;
}

/** What {@link TokenReportStore.tokensCreated} read. */
export interface TokenReads {
  readonly records: ReportedToken[];
  /** There are more tokens in the range than `limit`. */
  readonly more?: boolean;
  readonly cut?: boolean;
}
