import * as z from 'zod';

/** A positive integer id that survives JSON (below 2^53). */
export const Id = z.int().positive().max(Number.MAX_SAFE_INTEGER);

/** An id from a query string: digits only, then the same bounds. */
export const QueryId = z
  .string()
  .regex(/^[0-9]{1,16}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(Id);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session token: a UUID, case-insensitive on input, lower case from here on. */
export const SessionToken = z
  .string()
  .regex(UUID, 'must be a UUID')
  .transform((s) => s.toLowerCase())
  .meta({ format: 'uuid', example: '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b' });

/** ISO 8601 UTC date-time with milliseconds, as every response gives it. */
export const Timestamp = z.iso.datetime().meta({ example: '2026-11-23T10:00:00.000Z' });

/** The success envelope around a response's data. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** The error envelope. */
export const ErrorEnvelope = z.object({ success: z.literal(false), error: z.string() });
