/**
 * What an update changed, as its audit record keeps it: for each field whose value differs, the
 * value before and after. Only the fields an update may set are compared (a key's hash or raw key
 * never is one), so a record never carries a secret.
 */

/** One field's change. */
export interface FieldChange {
  readonly before: unknown;
  readonly after: unknown;
}

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
    if (JSON.stringify(was) !== JSON.stringify(is)) diff[field] = { before: was, after: is };
  }
  return diff;
}

/** Whether two diffs say the same. */
export function sameDiff(first: AuditDiff | null | undefined, second: AuditDiff | null | undefined): boolean {
  return JSON.stringify(first ?? null) === JSON.stringify(second ?? null);
}
