/**
 * The state every item's actions share, whether they show in a list's row menus or on the item's
 * own page (keys: pages/key-actions.tsx, endpoints: pages/webhook-actions.tsx): the dialog open over
 * the page, the last outcome (a message a page left, else what the last change did or why it was
 * refused), and the three ways an action ends. What each kind of item offers, and its dialogs, stay
 * with the item.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { flash, takeFlash } from './flash';
import { failure } from './load';
import type { Outcome } from './page';
import type { MenuItem } from './row-menu';

/** An item's actions on a page: its menu's items, the dialog open over the page, and the last outcome. */
export interface ItemActions<T> {
  /** The actions `item` offers, in order (Delete last). */
  readonly items: (item: T) => MenuItem[];
  readonly create: () => void;
  /** The dialog open now, if any. */
  readonly dialog: JSX.Element | null;
  /** What the last change did (or why it was refused). */
  readonly outcome: Outcome | undefined;
}

/** Props of {@link useItemActions}. */
export interface ItemActionsProps {
  /** After every change the service made: the page loads again. */
  readonly changed: () => void;
  /** After a deletion: an item's own page leaves for its list (which shows the message). */
  readonly deleted?: (() => void) | undefined;
}

/** The shared state of an item's actions; `O` says what is open over the page. */
export interface ItemActionsState<O> {
  readonly open: O | undefined;
  readonly setOpen: (open: O | undefined) => void;
  readonly close: () => void;
  readonly outcome: Outcome | undefined;
  /** A change made: say `text`, close the dialog, load the page again. */
  readonly done: (text: string) => void;
  /** A dialog's result to show (a new secret): it replaces the dialog, and the page loads again. */
  readonly show: (open: O) => void;
  /** Make `call` at once (nothing to confirm), then {@link done}; a refusal shows the service's message. */
  readonly act: (call: () => Promise<unknown>, text: string, then?: () => void) => void;
  /** The confirmed deletion: `remove`, then {@link done}; an item's page then leaves, carrying the message. */
  readonly removal: (remove: () => Promise<unknown>, text: string) => () => Promise<void>;
}

/** The shared state of an item's actions on a page. */
export function useItemActions<O>({ changed, deleted }: ItemActionsProps): ItemActionsState<O> {
  const [open, setOpen] = useState<O>();
  const [outcome, setOutcome] = useState<Outcome | undefined>(takeFlash);
  const close = () => setOpen(undefined);
  const done = (text: string) => {
    setOutcome({ kind: 'success', text });
    setOpen(undefined);
    changed();
  };
  const show = (next: O) => {
    setOpen(next);
    changed();
  };
  const act = (call: () => Promise<unknown>, text: string, then?: () => void) =>
    void call().then(
      () => {
        done(text);
        then?.();
      },
      (error: unknown) => setOutcome({ kind: 'error', text: failure(error).message }),
    );
  // A refusal rejects: the confirmation shows it and stays open.
  const removal = (remove: () => Promise<unknown>, text: string) => async () => {
    await remove();
    done(text);
    if (deleted) {
      flash({ kind: 'success', text });
      deleted();
    }
  };
  return { open, setOpen, close, outcome, done, show, act, removal };
}
