/**
 * The reliability figures the test suite produces (requests fuzzed, faults injected, races run, log
 * lines scanned, ...). Each test file adds its counts to a file of its own under
 * `test-output/figures/`; the figures reporter (`figures-reporter.js`) sums them after the run,
 * prints one line and writes `test-output/figures.json`, which SECURITY.md quotes.
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

/** Add counts (and notes such as the fuzz seed) to this test file's figures. */
export function addFigures(counts: Partial<Figures>, notes: Record<string, string | number> = {}): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  const testPath = expect.getState().testPath ?? 'unknown';
  // The run id comes from the figures reporter (absent when jest runs without it).
  const run = process.env.GSTS_FIGURES_RUN ?? 'no-reporter';
  const file = join(FIGURES_DIR, `${run}-${basename(testPath).replace(/\W+/g, '-')}-${process.pid}.json`);
  const current = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { counts: Partial<Figures>; notes: Record<string, string | number> })
    : { counts: {}, notes: {} };
  for (const [name, value] of Object.entries(counts) as [keyof Figures, number][]) {
    current.counts[name] = (current.counts[name] ?? 0) + value;
  }
  writeFileSync(file, JSON.stringify({ testPath, counts: current.counts, notes: { ...current.notes, ...notes } }, null, 2));
}

/** A figure line in the test output (stderr passes the log capture, and jest shows it). */
export function printFigures(line: string): void {
  process.stderr.write(`\n[figures] ${line}\n`);
}
