/**
 * Paging a list the service pages with a cursor (the audit log, an endpoint's deliveries): forward
 * with the service's `next_cursor`, back through the cursors already seen. One hook holds where the
 * reader is, one component shows "Newer", the page's number and "Older".
 */
import { useState } from 'preact/hooks';

/** Where the reader is in a cursor-paged list. */
export interface Cursors {
  /** The cursor of the page shown (undefined: the first, newest page). */
  readonly cursor: string | undefined;
  /** The page's number, from 1. */
  readonly number: number;
  readonly newer: () => void;
  readonly older: (next: string) => void;
  /** Back to the first page (the filters changed). */
  readonly reset: () => void;
}

/** The cursors of the pages before this one, and the moves between them. */
export function useCursors(): Cursors {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: cursors[cursors.length - 1],
    number: cursors.length,
    newer: () => setCursors(cursors.length > 1 ? cursors.slice(0, -1) : cursors),
    older: (next) => setCursors([...cursors, next]),
    reset: () => setCursors([undefined]),
  };
}

/** "Newer", "Page n", "Older" (disabled at either end): `next` is the page's `next_cursor`. */
export function Pager({ label, at, next }: { label: string; at: Cursors; next: string | null | undefined }) {
  return (
    <nav class="buttons" aria-label={label}>
      <button type="button" disabled={at.number === 1} onClick={at.newer}>
        Newer
      </button>
      <span>Page {at.number}</span>
      <button type="button" disabled={!next} onClick={() => next && at.older(next)}>
        Older
      </button>
    </nav>
  );
}
