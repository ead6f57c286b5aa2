import * as z from 'zod';
import { Id, SessionToken } from './common.js';

/** What a play page's script sends right after consuming its token, to get its play cookie. */
export const PlaySessionBody = z
  .object({
    token: SessionToken,
    /** The `session_id` the consume-session answer returned. */
    session_id: Id,
    /** The page is the embed shape (the cookie must then work inside a partner's iframe). */
    embed: z.boolean().default(false),
  })
  .meta({ id: 'PlaySessionRequest' });
