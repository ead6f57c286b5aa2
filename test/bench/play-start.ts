/**
 * The time a player waits for the game: from navigation to the play page until the game's iframe
 * has its `src` (issue 28), measured in Chromium (the browser tier's, `test/support/browser.ts`)
 * against the bench's local stack. Each run opens a fresh token's play page in a fresh browser
 * context (no cookie: the page's script must consume the token before the game starts). An init
 * script, which runs before the page's own, notes `performance.now()` (milliseconds since the
 * navigation began) when an `iframe#game` with a `src` appears in the document.
 */
import type { Browser } from 'playwright-core';
import { startChromium } from '../support/chromium.js';
import type { BenchStack } from './harness.js';
import { mintTokens } from './operations.js';
import { percentile, round } from './stats.js';
import { table } from './table.js';

/** What the runs measured, in milliseconds. */
export interface PlayStartFigures {
  /** Runs measured (after the warm-up ones). */
  readonly runs: number;
  readonly p50: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
  /** The browser that ran them (the browser tier's choice). */
  readonly browser: string;
}

/**
 * Runs in the page before its scripts (playwright's init script, outside the page's CSP): the first
 * moment an `iframe#game` with a `src` is in the document, as `window.__gameFrameAt`.
 */
const OBSERVE_GAME_FRAME = `(() => {
  const seen = () => {
    const frame = document.querySelector('iframe#game');
    if (frame && frame.getAttribute('src') && window.__gameFrameAt === undefined) window.__gameFrameAt = performance.now();
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['src'] });
})();`;

/** `warmup` unrecorded runs, then `runs` recorded ones, one at a time. */
export async function measurePlayStart(stack: BenchStack, options: { warmup: number; runs: number }): Promise<PlayStartFigures> {
  const launched = await startChromium();
  if (!('browser' in launched)) throw new Error(`navigation to game frame needs Chromium: ${launched.skipped}`);
  const browser: Browser = launched.browser;
  try {
    const tokens = await mintTokens(stack, options.warmup + options.runs);
    const samples: number[] = [];
    for (const [i, token] of tokens.entries()) {
      const ms = await oneRun(browser, `${stack.service.baseUrl}/play/game/101?session_token=${token}`);
      if (i >= options.warmup) samples.push(ms);
    }
    return {
      runs: samples.length,
      p50: percentile(samples, 50),
      p90: percentile(samples, 90),
      min: Math.min(...samples),
      max: Math.max(...samples),
      browser: launched.source,
    };
  } finally {
    await browser.close();
  }
}

/** One fresh context, one navigation: the milliseconds from its start to the game frame's `src`. */
async function oneRun(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(OBSERVE_GAME_FRAME);
    const page = await context.newPage();
    const response = await page.goto(url);
    if (response?.status() !== 200) throw new Error(`the play page answered ${response?.status()}`);
    // Functions, not strings: the page's CSP forbids eval, which a string predicate needs.
    const at = () => (globalThis as { __gameFrameAt?: number }).__gameFrameAt;
    await page.waitForFunction(() => (globalThis as { __gameFrameAt?: number }).__gameFrameAt !== undefined, undefined, {
      timeout: 10_000,
    });
    return (await page.evaluate(at))!;
  } finally {
    await context.close();
  }
}

/** The figures for the JSON line. */
export function playStartJson(f: PlayStartFigures): Record<string, unknown> {
  return {
    navigation_to_game_frame_ms: { p50: round(f.p50, 1), p90: round(f.p90, 1), min: round(f.min, 1), max: round(f.max, 1), runs: f.runs },
  };
}

/**
 * The browser section's tables: the browser lifecycle request by request (stages, capacity, billed
 * handler time), its cost beside the API lifecycle's, and the navigation-to-game-frame figures.
 */
export function renderBrowser(
  steps: readonly { name: string; stages: number; read: number; write: number; billedMs: number }[],
  cost: { api: number; browser: number; browserRequests: number },
  start: PlayStartFigures,
  markdown: boolean,
): string[] {
  return [
    `Browser lifecycle: ${cost.browserRequests} requests, $${cost.browser.toFixed(2)} per million all in (API lifecycle $${cost.api.toFixed(2)})`,
    ...table(
      markdown,
      ['request', 'stages', 'RRU', 'WRU', 'billed ms'],
      steps.map((s) => [s.name, String(s.stages), s.read.toFixed(1), s.write.toFixed(1), String(s.billedMs)]),
    ),
    '',
    `Navigation to the game frame's src (${start.browser}, fresh context and token per run, ${start.runs} runs)`,
    ...table(markdown, ['p50 ms', 'p90 ms', 'min ms', 'max ms'], [[start.p50, start.p90, start.min, start.max].map((v) => v.toFixed(1))]),
  ];
}
