/** The audit feature's own shapes, which the audit-log schema (`shared/usage/audit-schemas.ts`) shows as they are. */
import * as z from 'zod/mini';
import { withMeta } from '../platform/schemas.js';

/** A changed field's value: a name, a flag, a limit, an expiry, an allow-list or scope list, or null. */
export const FieldValue = z.nullable(z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.number(), z.string()]))]));

/** One field's change in an update's record. */
export const FieldChange = withMeta(z.object({ before: FieldValue, after: FieldValue }), { id: 'FieldChange' });
