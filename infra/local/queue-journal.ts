/**
 * Where the local delivery queue (`delivery-queue.ts`) keeps its messages across restarts: a file
 * of JSON lines, appended to as messages are sent (`held`), done (`done`), handed back after a
 * failure (`held` again, with their receive count) or dead-lettered (`dead`). Loading replays it
 * and writes it anew with only what is still held or dead; so does a journal grown well past what
 * it holds. Appends are synchronous, so a message a send has acknowledged is on disk, as SQS has
 * stored a message it acknowledged.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { HeldMessage } from './delivery-queue.js';

/** One line of the journal. */
type Line = { held: HeldMessage } | { done: string } | { dead: HeldMessage };

/** Lines appended before a journal is written anew, at the least (and 4 times what it keeps). */
const COMPACT_AFTER_LINES = 10_000;

/** See the module comment. */
export class QueueJournal {
  private lines = 0;

  constructor(private readonly path: string) {}

  /** What the journal keeps: the messages held (their calls under way when it stopped included) and the dead-lettered ones; written anew. */
  load(): { held: HeldMessage[]; dead: HeldMessage[] } {
    const held = new Map<string, HeldMessage>();
    const dead = new Map<string, HeldMessage>();
    if (existsSync(this.path)) {
      for (const text of readFileSync(this.path, 'utf8').split('\n')) {
        const line = parse(text);
        if (!line) continue;
        if ('held' in line) held.set(line.held.messageId, line.held);
        else if ('done' in line) held.delete(line.done);
        else {
          held.delete(line.dead.messageId);
          dead.set(line.dead.messageId, line.dead);
        }
      }
    }
    const kept = { held: [...held.values()], dead: [...dead.values()] };
    this.rewrite(kept.held, kept.dead);
    return kept;
  }

  /** Messages sent (or handed back). */
  held(messages: readonly HeldMessage[]): void {
    this.append(messages.map((held) => ({ held })));
  }

  /**
   * A handler call's outcome: `done` ids forgotten, `back` held again, `dead` dead-lettered. When the
   * journal has grown well past what the queue keeps, it is written anew from `keptHeld` and `keptDead`.
   */
  settled(
    done: readonly string[],
    back: readonly HeldMessage[],
    dead: readonly HeldMessage[],
    keptHeld: () => HeldMessage[],
    keptDead: () => HeldMessage[],
  ): void {
    this.append([...done.map((id) => ({ done: id })), ...back.map((held) => ({ held })), ...dead.map((message) => ({ dead: message }))]);
    const held = keptHeld();
    const deadNow = keptDead();
    if (this.lines > COMPACT_AFTER_LINES && this.lines > 4 * (held.length + deadNow.length)) this.rewrite(held, deadNow);
  }

  private append(lines: readonly Line[]): void {
    if (lines.length === 0) return;
    appendFileSync(this.path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
    this.lines += lines.length;
  }

  /** Write the journal anew (a whole file renamed into place: a crash leaves the old one or the new). */
  private rewrite(held: readonly HeldMessage[], dead: readonly HeldMessage[]): void {
    const lines: Line[] = [...held.map((message) => ({ held: message })), ...dead.map((message) => ({ dead: message }))];
    const next = `${this.path}.next`;
    writeFileSync(next, lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
    renameSync(next, this.path);
    this.lines = lines.length;
  }
}

/** A journal line; undefined for an empty or torn one (the last line of a crash). */
function parse(text: string): Line | undefined {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as Line;
  } catch {
    return undefined;
  }
}
