/**
 * What an update changed, as its audit record keeps it: for each field whose value differs, the
 * value before and after. Only the fields an update may set are compared (a key's hash or raw key
 * never is one), so a record never carries a secret.
 */

import type * as z from 'zod/mini';
import type { FieldChange as FieldChangeSchema, FieldValue as FieldValueSchema } from './schemas.js';

/** A changed field's value. */
type FieldValue = z.output<typeof FieldValueSchema>;
/** One field's change (the audit log's schema). */
export type FieldChange = Readonly<z.output<typeof FieldChangeSchema>>;

/** The changes of one update, by field; only fields whose value changed. */
export type AuditDiff = Readonly<Record<string, FieldChange>>;

/**
 * The fields of `fields` whose value differs between `before` and `after` (compared as JSON, so two
 * equal lists are equal; an absent value reads as null).
 */
export function diffOf<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): AuditDiff {
  const diff: Record<string, FieldChange> = {};
  for (const field of fields) {
    const was = before[field] ?? null;
    const is = after[field] ?? null;
    // The fields compared are an update's settable ones, each a FieldValue (the schemas of those updates say so).
    if (JSON.stringify(was) !== JSON.stringify(is)) diff[field] = { before: was as FieldValue, after: is as FieldValue };
  }
  return diff;
}

/**
 * Whether a write's own diff should replace the one its audit record holds: it says otherwise, and it
 * is not empty. An empty one is not trusted over the record's: a write repeated after a lost answer
 * reads its own first application as "before" (a true no-op change is rare enough to keep).
 */
export function correctsDiff(real: AuditDiff | undefined, recorded: AuditDiff | null | undefined): real is AuditDiff {
  return real !== undefined && Object.keys(real).length > 0 && JSON.stringify(real) !== JSON.stringify(recorded ?? null);
}
