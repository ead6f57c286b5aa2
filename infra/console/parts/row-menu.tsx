/**
 * The actions of one row of a list, in one menu (a disclosure: `<details>`, so it opens with the
 * keyboard and a screen reader says whether it is open), beside the link to the item's page. A
 * list row stays one line however many actions its item has. Choosing an action closes the menu;
 * so does Escape, and a click elsewhere. An item's own page shows the same items as buttons.
 */
import { useEffect, useRef } from 'preact/hooks';

/** One action of the menu. */
export interface MenuItem {
  readonly label: string;
  readonly run: () => void;
  /** A destructive action (shown red). */
  readonly danger?: boolean;
}

/** Props of {@link RowMenu}. */
export interface RowMenuProps {
  /** What the menu acts on, for its button's accessible name ("Actions for Checkout server (dpk_1a2b)"). */
  readonly of: string;
  readonly items: readonly MenuItem[];
}

/** A row's "Actions" menu. */
export function RowMenu({ of, items }: RowMenuProps) {
  const menu = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const closeOutside = (event: Event) => {
      const details = menu.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('click', closeOutside);
    return () => document.removeEventListener('click', closeOutside);
  }, []);
  const close = () => {
    if (menu.current) menu.current.open = false;
  };
  return (
    <details
      class="row-menu"
      ref={menu}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || !menu.current?.open) return;
        close();
        menu.current.querySelector('summary')?.focus();
      }}
    >
      <summary aria-label={`Actions for ${of}`}>Actions</summary>
      <ul>
        {items.map((item) => (
          <li key={item.label}>
            <button
              type="button"
              class={item.danger ? 'danger' : undefined}
              onClick={() => {
                close();
                // The menu's button holds the focus: a dialog the action opens gives it back there.
                menu.current?.querySelector('summary')?.focus();
                item.run();
              }}
            >
              {item.label}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The same actions as a row of buttons, on the item's own page (room enough there). */
export function ActionButtons({ label, items }: { label: string; items: readonly MenuItem[] }) {
  return (
    <div class="buttons" role="group" aria-label={label}>
      {items.map((item) => (
        <button key={item.label} type="button" class={item.danger ? 'danger' : undefined} onClick={item.run}>
          {item.label}
        </button>
      ))}
    </div>
  );
}
