/** The health check's query and answer (`GET /api/health`). */
import * as z from 'zod/mini';
import { withMeta } from '../platform/schemas.js';

export const HealthQuery = z.object({
  deep: withMeta(z.optional(z.enum(['0', '1', 'true', 'false'])), {
    description: '`1` (or `true`) also reads one item of the database, bounded at 2 s, and reports its latency.',
    example: '1',
  }),
});

export const HealthReport = withMeta(
  z.object({
    status: z.literal('ok'),
    interface_version: withMeta(z.string(), { description: 'Version of the public interface.', example: '1.0.0' }),
    build_version: withMeta(z.string(), {
      description: 'What is deployed: a commit or release; `dev` when run locally.',
      example: 'a1b2c3d',
    }),
    database: withMeta(
      z.optional(
        z.object({ status: z.literal('ok'), latency_ms: withMeta(z.number(), { description: 'Time of the one read, in milliseconds.' }) }),
      ),
      { description: 'Only with `deep=1`: the database answered one read.' },
    ),
  }),
  { id: 'HealthReport' },
);
