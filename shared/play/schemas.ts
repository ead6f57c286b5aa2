import * as z from 'zod/mini';
import { SessionToken, withMeta } from '../platform/schemas.js';

/** What a play page's script sends to start its play session: the page's token, consumed by this request. */
export const PlaySessionBody = withMeta(
  z.object({
    token: SessionToken,
    embed: withMeta(z._default(z.boolean(), false), {
      description: 'The page is the embed shape: the cookie must then work inside a partner’s iframe.',
    }),
  }),
  // Inline in the document, not a component: generators (openapi-typescript) treat a component's
  // defaulted fields (`embed`) as required, but not a request body's own.
  { description: 'The play page’s token, which this request consumes, and the page’s shape.' },
);

/**
 * The query of a play page, for the documents: the page reads `session_token` itself (a malformed
 * one is 400, an unknown one 404, a used one 410: `refusalError` in `shared/play/play.ts`).
 */
export const PageQuery = z.object({
  session_token: withMeta(z.optional(SessionToken), {
    description: 'The single-use session token, when the game or stream requires one (“Require API Session Token”).',
  }),
});
