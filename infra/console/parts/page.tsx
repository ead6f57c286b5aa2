/** Pieces every page uses: its focused heading, notices, and the loading / refusal states. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Loaded } from './load';

/** The page's `h1`; it takes the focus when the page opens (the route changed). */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  );
}

/** What a change did, or why it was refused: a page's notice. */
export interface Outcome {
  readonly kind: 'error' | 'success';
  readonly text: string;
}

/** A message: errors are announced at once (`alert`), the rest politely (`status`). */
export function Notice({ kind, children }: { kind: 'error' | 'info' | 'success'; children: ComponentChildren }) {
  return (
    <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/**
 * The loaded data's view, or "Loading…", or the refusal: a 403 says which roles may (the service's
 * own message), shown as it is.
 */
export function Loading<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <p aria-live="polite">Loading…</p>;
  if (loaded.state === 'failed') {
    return <Notice kind="error">{loaded.status === 403 ? `Not allowed: ${loaded.message}` : loaded.message}</Notice>;
  }
  return <>{children(loaded.data)}</>;
}

/** A table cell labelled with its column's name, which a narrow screen's card shows beside the value (views.css). */
export function Cell({ column, class: className, children }: { column: string; class?: string; children: ComponentChildren }) {
  return (
    <td class={className} data-label={column}>
      {children}
    </td>
  );
}

/**
 * A table in a scrollable region of its own (keyboard-reachable, named for screen readers): the
 * column heads, then `children` as its body rows.
 */
export function TableRegion(props: { label: string; heads: readonly string[]; class?: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      <table class={props.class}>
        <thead>
          <tr>
            {props.heads.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
