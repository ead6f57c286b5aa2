import type { SessionCounts, SessionReport } from './reports.js';

/** What a count is about: its key, and its game or stream (both null: neither is known). */
interface Subject {
  readonly key_id: number;
  readonly game_id: number | null;
  readonly stream_id: number | null;
}

/** An id as a fixed-width label part, so that labels sort by number. */
function pad(id: number | null): string {
  return String(id ?? 0).padStart(16, '0');
}

/** Counts that are all zero. */
function noCounts(): SessionCounts {
  return { created: 0, active: 0, consumed: 0, expired: 0, revoked: 0, rate_limited: 0, forbidden: 0 };
}

/**
 * The rows of a session report as they are counted: totals, one row per day of the range, and one
 * per day and target (game or stream) and per day and key that has any count, in label order.
 */
export class ReportTable {
  private readonly totals = noCounts();
  private readonly days = new Map<string, SessionCounts>();
  private readonly targets = new Map<string, { date: string; game_id: number | null; stream_id: number | null } & SessionCounts>();
  private readonly keys = new Map<string, { date: string; key_id: number } & SessionCounts>();

  constructor(range: readonly string[]) {
    for (const date of range) this.days.set(date, noCounts());
  }

  /**
   * Count `count` of `what` on `date` for `subject`: a token's status (which counts as created too) or
   * a refusal. `byTarget` false leaves the per-target rows out (the subject names no target).
   */
  add(date: string, subject: Subject, what: Exclude<keyof SessionCounts, 'created'>, count = 1, byTarget = true): void {
    const day = this.days.get(date);
    if (!day) return;
    const created = what === 'rate_limited' || what === 'forbidden' ? 0 : count;
    const rows: SessionCounts[] = [this.totals, day];
    if (byTarget && (subject.game_id !== null || subject.stream_id !== null)) {
      const label = `${date}|${subject.game_id !== null ? `g${pad(subject.game_id)}` : `s${pad(subject.stream_id)}`}`;
      rows.push(this.row(this.targets, label, () => ({ date, game_id: subject.game_id, stream_id: subject.stream_id })));
    }
    rows.push(this.row(this.keys, `${date}|${pad(subject.key_id)}`, () => ({ date, key_id: subject.key_id })));
    for (const row of rows) {
      row[what] += count;
      row.created += created;
    }
  }

  /** The report's rows. */
  rows(): Pick<SessionReport, 'totals' | 'days' | 'by_target' | 'by_key'> {
    const sorted = <T>(byLabel: Map<string, T>) => [...byLabel.keys()].sort().map((label) => byLabel.get(label)!);
    return {
      totals: this.totals,
      days: [...this.days].map(([date, counts]) => ({ date, ...counts })),
      by_target: sorted(this.targets),
      by_key: sorted(this.keys),
    };
  }

  private row<T extends SessionCounts>(byLabel: Map<string, T>, label: string, make: () => Omit<T, keyof SessionCounts>): T {
    let row = byLabel.get(label);
    if (!row) byLabel.set(label, (row = { ...make(), ...noCounts() } as T));
    return row;
  }
}
