import * as z from 'zod/mini';
import { Id, SessionToken, withMeta } from './common.js';

/** What a play page's script sends right after consuming its token, to get its play cookie. */
export const PlaySessionBody = withMeta(
  z.object({
    token: SessionToken,
    /** The `session_id` the consume-session answer returned. */
    session_id: Id,
    /** The page is the embed shape (the cookie must then work inside a partner's iframe). */
    embed: z._default(z.boolean(), false),
  }),
  { id: 'PlaySessionRequest' },
);

/**
 * The query of a play page, for the documents: the page reads `session_token` itself (a malformed
 * one is 400, an unknown one 404, a used one 410: `refusalError` in `domain/play.ts`).
 */
export const PageQuery = z.object({
  session_token: withMeta(z.optional(SessionToken), {
    description: 'The single-use session token, when the game or stream requires one (“Require API Session Token”).',
  }),
});
