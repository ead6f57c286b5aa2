/**
 * The reliability figures the test suite produces (requests fuzzed, faults injected, races run, log
 * lines scanned, ...). Each test file adds its counts to a file of its own under
 * `test-output/figures/`; the figures reporter (`figures-reporter.js`) sums them after the run,
 * prints one line and writes `test-output/figures.json` (with each file's detail lines), which
 * SECURITY.md quotes.
 */
import { expect } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the per-file figures go (the reporter clears it when a run starts). */
const FIGURES_DIR = fileURLToPath(new URL('../../test-output/figures/', import.meta.url));

/** Counts a test file reports; every one is summed over the run. */
export interface Figures {
  requestsFuzzed: number;
  faultsInjected: number;
  faultRequests: number;
  recoveredByRetry: number;
  /**
   * Faulted requests whose audit correction failed on every attempt and were logged instead (not
   * printed; SECURITY.md quotes it). A count, not a note: several fault files add to it.
   */
  auditCorrectionsLogged: number;
  racesRun: number;
  raceRequests: number;
  logLinesScanned: number;
  secretsChecked: number;
  dataFilesScanned: number;
  stacksChecked: number;
}

/** This test file's figures file: its counts, notes and detail lines. */
interface FileFigures {
  counts: Partial<Figures>;
  notes: Record<string, string | number>;
  lines?: string[];
}

/** Change this test file's figures file (made on first use). */
function updateFigures(change: (current: FileFigures) => void): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  const testPath = expect.getState().testPath ?? 'unknown';
  // The run id comes from the figures reporter (absent when jest runs without it).
  const run = process.env.GSTS_FIGURES_RUN ?? 'no-reporter';
  const file = join(FIGURES_DIR, `${run}-${basename(testPath).replace(/\W+/g, '-')}-${process.pid}.json`);
  const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FileFigures) : { counts: {}, notes: {} };
  change(current);
  writeFileSync(file, JSON.stringify({ testPath, ...current }, null, 2));
}

/** Add counts (and notes such as the fuzz seed) to this test file's figures. */
export function addFigures(counts: Partial<Figures>, notes: Record<string, string | number> = {}): void {
  updateFigures((current) => {
    for (const [name, value] of Object.entries(counts) as [keyof Figures, number][]) {
      current.counts[name] = (current.counts[name] ?? 0) + value;
    }
    Object.assign(current.notes, notes);
  });
}

/**
 * A detail line of this file's figures (a fuzz file's statuses, a fault file's retries): kept in
 * `test-output/figures.json` beside the file's counts, which the run's one summary line sums. A
 * passing run prints nothing of it; `TEST_CONSOLE=all` prints it too, as it comes.
 */
export function addFigureLine(line: string): void {
  updateFigures((current) => {
    current.lines = [...(current.lines ?? []), line];
  });
  if (process.env.TEST_CONSOLE === 'all') process.stderr.write(`\n[figures] ${line}\n`);
}
