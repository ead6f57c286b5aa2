/**
 * The time a player waits for the game: from navigation to the play page until the game's iframe
 * has its `src`, including one click on Play as soon as the button is there (the canonical page's
 * `click` start mode: docs/play-pages.md#starting-the-game; the player's own time to decide is not
 * counted), measured in Chromium (the browser tier's, `test/support/chromium.ts`)
 * against the bench's local stack. Each run opens a fresh token's play page in a fresh browser
 * context (no cookie: the page's script must consume the token before the game starts). An init
 * script, which runs before the page's own, notes `performance.now()` (milliseconds since the
 * navigation began) when an `iframe#game` with a `src` appears in the document.
 */
import type { Browser } from 'playwright-core';
import { startChromium } from '../support/chromium.js';
import type { BenchStack } from './harness.js';
import { mintTokens } from './operations.js';
import { withRoundTrip } from './rtt-latency.js';
import { percentile, round } from './stats.js';
import { table } from './table.js';

/** Order statistics of one condition's runs, in milliseconds. */
export interface PlayStartRuns {
  /** Runs measured (after the warm-up ones). */
  readonly runs: number;
  readonly p50: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** What the browser phase measured: on this machine as it is, and at modelled round trips. */
export interface PlayStartFigures {
  /** No added latency: the page's requests cost what they cost here (CPU, mostly). */
  readonly local: PlayStartRuns;
  /** Every browser request paying `networkRttMs` (Chromium's emulation) and every DynamoDB call `dynamoRttMs`. */
  readonly modelled: PlayStartRuns;
  readonly networkRttMs: number;
  readonly dynamoRttMs: number;
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

/**
 * For each condition, `warmup` unrecorded runs then `runs` recorded ones, one at a time: first on
 * this machine as it is, then with every browser request paying `networkRttMs` (a player's round
 * trip to the edge) and every DynamoDB call `dynamoRttMs` (./rtt-latency.ts), where each request
 * the page waits for shows as what it costs a player.
 */
export async function measurePlayStart(
  stack: BenchStack,
  options: { warmup: number; runs: number; networkRttMs: number; dynamoRttMs: number },
): Promise<PlayStartFigures> {
  const launched = await startChromium();
  if (!('browser' in launched)) throw new Error(`navigation to game frame needs Chromium: ${launched.skipped}`);
  const browser: Browser = launched.browser;
  const series = async (networkRttMs: number): Promise<PlayStartRuns> => {
    const tokens = await mintTokens(stack, options.warmup + options.runs);
    const samples: number[] = [];
    for (const [i, token] of tokens.entries()) {
      const ms = await oneRun(browser, `${stack.service.baseUrl}/play/game/101?session_token=${token}`, networkRttMs);
      if (i >= options.warmup) samples.push(ms);
    }
    const [p50, p90] = [percentile(samples, 50), percentile(samples, 90)];
    return { runs: samples.length, p50, p90, min: Math.min(...samples), max: Math.max(...samples) };
  };
  try {
    const local = await series(0);
    const modelled = await withRoundTrip(stack, options.dynamoRttMs, () => series(options.networkRttMs));
    return { local, modelled, networkRttMs: options.networkRttMs, dynamoRttMs: options.dynamoRttMs, browser: launched.source };
  } finally {
    await browser.close();
  }
}

/** One fresh context, one navigation: the milliseconds from its start to the game frame's `src`. */
async function oneRun(browser: Browser, url: string, networkRttMs: number): Promise<number> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(OBSERVE_GAME_FRAME);
    const page = await context.newPage();
    if (networkRttMs > 0) {
      // Chromium holds each response for this long: one round trip per request, as over a real network.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: networkRttMs,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    }
    const response = await page.goto(url);
    if (response?.status() !== 200) throw new Error(`the play page answered ${response?.status()}`);
    // A real click (trusted input), the moment the button can take it.
    await page.getByRole('button', { name: /^Play / }).click();
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
  const runs = (r: PlayStartRuns) => ({
    p50: round(r.p50, 1),
    p90: round(r.p90, 1),
    min: round(r.min, 1),
    max: round(r.max, 1),
    runs: r.runs,
  });
  return {
    navigation_to_game_frame_ms: {
      local: runs(f.local),
      modelled: { ...runs(f.modelled), network_rtt_ms: f.networkRttMs, dynamodb_rtt_ms: f.dynamoRttMs },
    },
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
    `Navigation to the game frame's src (${start.browser}, fresh context and token per run)`,
    ...table(
      markdown,
      ['condition', 'runs', 'p50 ms', 'p90 ms', 'min ms', 'max ms'],
      (
        [
          ['this machine', start.local],
          [`network RTT ${start.networkRttMs} ms, DynamoDB RTT ${start.dynamoRttMs} ms`, start.modelled],
        ] as const
      ).map(([label, r]) => [label, String(r.runs), ...[r.p50, r.p90, r.min, r.max].map((v) => v.toFixed(1))]),
    ),
  ];
}
