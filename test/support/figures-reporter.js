/**
 * A jest reporter that sums the reliability figures the test files wrote under
 * `test-output/figures/` (see `figures.ts`), prints them as one line after the run and writes them
 * to `test-output/figures.json`. Plain JavaScript: jest loads reporters without the TypeScript transform.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const DIR = new URL('../../test-output/figures/', import.meta.url);
const SUMMARY = new URL('../../test-output/figures.json', import.meta.url);

/** Figures of earlier runs older than this are removed. */
const STALE_MS = 3_600_000;

export default class FiguresReporter {
  constructor() {
    // Test workers start after the reporters and inherit the environment: each file's figures carry
    // this run's id, so that runs side by side (or left over) never mix.
    this.runId = `${process.pid}-${Date.now()}`;
    process.env.GSTS_FIGURES_RUN = this.runId;
  }

  onRunStart() {
    if (!existsSync(DIR)) return;
    for (const name of readdirSync(DIR)) {
      const file = new URL(name, DIR);
      if (Date.now() - statSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
    }
  }

  onRunComplete(_contexts, results) {
    if (!existsSync(DIR)) return;
    const files = readdirSync(DIR).filter((name) => name.startsWith(`${this.runId}-`) && name.endsWith('.json'));
    const totals = {};
    const notes = {};
    const perFile = [];
    for (const name of files) {
      const entry = JSON.parse(readFileSync(new URL(name, DIR), 'utf8'));
      perFile.push(entry);
      for (const [key, value] of Object.entries(entry.counts)) totals[key] = (totals[key] ?? 0) + value;
      Object.assign(notes, entry.notes);
    }
    if (perFile.length === 0) return;
    mkdirSync(new URL('..', SUMMARY), { recursive: true });
    writeFileSync(SUMMARY, JSON.stringify({ at: new Date().toISOString(), totals, notes, files: perFile }, null, 2) + '\n');
    const n = (key) => (totals[key] ?? 0).toLocaleString('en-US');
    const seed = notes.fuzzSeed === undefined ? '' : ` (seed ${notes.fuzzSeed})`;
    process.stdout.write(
      `\nReliability figures: ${n('requestsFuzzed')} requests fuzzed${seed}, ${n('faultsInjected')} faults injected ` +
        `(${n('recoveredByRetry')} recovered by a retry), ${n('racesRun')} races run (${n('raceRequests')} requests), ` +
        `${n('logLinesScanned')} log lines scanned for ${n('secretsChecked')} secrets, ${n('dataFilesScanned')} data files ` +
        `scanned, in ${n('stacksChecked')} stacks` +
        (results.numFailedTests === 0 && results.numFailedTestSuites === 0 ? ': every invariant held.\n' : ' (the run has failures).\n'),
    );
    // A test that cannot run on this machine (no Chromium, no curl) says so once, with how to enable it:
    // its file notes the reason under a name ending in `Skipped` (`browser.ts`, `start-guide.test.ts`).
    const skipped = Object.entries(notes).filter(([name]) => name.endsWith('Skipped'));
    for (const [, reason] of skipped) process.stdout.write(`Skipped: ${reason}\n`);
    // CI installs what every tier needs (`.ci/run`): there, a skip means the install did not work.
    if (skipped.length > 0 && process.env.REQUIRE_EVERY_TIER === '1') {
      this.error = new Error(`REQUIRE_EVERY_TIER=1 and ${skipped.length} tier(s) skipped: the run fails`);
      process.stdout.write(`${this.error.message}\n`);
    }
  }

  /** Jest fails the run when a reporter has an error: a skipped tier under REQUIRE_EVERY_TIER=1. */
  getLastError() {
    return this.error;
  }
}
