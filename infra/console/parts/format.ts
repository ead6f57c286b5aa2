/** How values read in the tables: dates in the admin's locale and zone, lists, limits. */
import { displayLocale } from './locale.js';

/** A key in the keys page's messages and buttons: its name and prefix ("Browser key (dpk_737d)"). */
export function keyName(key: { readonly name: string; readonly key_prefix: string }): string {
  return `${key.name} (${key.key_prefix})`;
}

/** A timestamp as a short local date and time, or "—". */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(displayLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** A timestamp to the second (attempts of one delivery can be seconds apart), or "—". */
export function whenExact(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(displayLocale(), { dateStyle: 'medium', timeStyle: 'medium' });
}

/** An allow-list: "all" when null, "none" when empty, else the ids. */
export function allowList(ids: readonly number[] | null): string {
  if (ids === null) return 'all';
  return ids.length === 0 ? 'none' : ids.join(', ');
}

/** Ids typed in a field ("101, 102"): blank means null (every one). Throws on anything not an id. */
export function parseIds(text: string): number[] | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (trimmed.toLowerCase() === 'none') return [];
  return trimmed.split(/[\s,]+/).map((part) => {
    if (!/^\d{1,15}$/.test(part) || Number(part) < 1) throw new Error(`"${part}" is not an id (positive whole numbers, comma-separated)`);
    return Number(part);
  });
}

/** The text field form of an allow-list. */
export function idsText(ids: readonly number[] | null): string {
  return ids === null ? '' : ids.length === 0 ? 'none' : ids.join(', ');
}

/** Any JSON value, short, for the audit log's before/after. */
export function shortValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** `yyyy-mm-dd` of a date in UTC (the report's days are UTC days). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** An ISO timestamp as a `datetime-local` value (the admin's local time, to the minute), or ''. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  // The date's own local fields: its offset on that day (across a daylight-saving change, not today's).
  const at = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
}

/**
 * A `datetime-local` value as the instant to send (a key's expiry, a recovery's window). The field
 * holds minutes only, so a value the admin left as shown keeps the instant it showed, seconds
 * included: an edit of another field must not move a key's expiry (down by up to 59 s, into the past
 * for a key about to expire), nor a recovery's start past the second its endpoint was paused.
 * @param value the field's text ('' for none) @param current the instant the field showed first (null: none)
 */
export function instantOf(value: string, current: string | null): string | null {
  if (value === toLocalInput(current)) return current;
  return value ? new Date(value).toISOString() : null;
}
