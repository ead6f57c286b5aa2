/**
 * A message that outlives the page it was made on: an item's page that deletes its item (or a
 * list that sends a test event) moves to another page, which shows what was done. Held in memory
 * for the next page to take, once.
 */
import type { Outcome } from './page';

let held: Outcome | undefined;

/** Leave `outcome` for the next page. */
export function flash(outcome: Outcome): void {
  held = outcome;
}

/** The message left for this page, if any; taken once. */
export function takeFlash(): Outcome | undefined {
  const taken = held;
  held = undefined;
  return taken;
}
