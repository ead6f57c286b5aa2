/**
 * `npm run bench`: one run, on this machine, of everything the speed targets are about (see
 * BENCHMARKS.md): round-trip stages and capacity units per operation, latency against a raw
 * GetItem, throughput, cold starts of the deployed bundles, and the cost of a million lifecycles.
 * It starts its own local stack in a temporary folder and leaves nothing behind; it prints the
 * tables (`--markdown`: as Markdown) and, as its last line, one JSON object with the figures.
 * `--backend local` runs it on AWS's DynamoDB Local instead of dynalite (the refusals table shows
 * where the two differ).
 * Progress goes to stderr.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { benchBackend } from './dynamo-process.js';
import { functionNames } from '../../infra/permissions.js';
import { routes } from '../../shared/routes.js';
import { measureColdStarts, type ColdStartFigures } from './cold-start.js';
import { API_LIFECYCLE, BROWSER_LIFECYCLE, measureCostInputs, priceLifecycles } from './lifecycles.js';
import { measurePlayStart, playStartJson, renderBrowser, type PlayStartFigures } from './play-start.js';
import { costJson } from './report-cost.js';
import { floors } from './floors.js';
import { startBenchStack } from './harness.js';
import { stopAllWhenRunFails, stopWhenRunFails } from './run-end.js';
import { measureLatency } from './latency.js';
import { benchOperations, mintTokens } from './operations.js';
import { figuresJson, renderColdStarts, renderTables, snake, type BenchResult } from './report.js';
import { measureStages } from './stages.js';
import { measureRefusals, refusalsJson, renderRefusals, type RefusalFigures } from './refusals.js';
import { median, percentile } from './stats.js';
import { bundleTargets, checkTargets, rttTargets, webhookTargets } from './targets.js';
import { table } from './table.js';
import { measureThroughput } from './throughput.js';
import { DynamoProxy } from './proxy/dynamo-proxy.js';
import { renderRtt, renderScale, rttScaleJson } from './report-scale.js';
import { measureRttLatency, type RttFigures } from './rtt-latency.js';
import { runScale, SCALE } from './scale/run-scale.js';
import type { ScenarioResult } from './scale/scenario.js';
import { measureUsageReport, renderUsageReport, usageReportJson, type UsageReportFigures } from './usage-report.js';
import { measureWebhooks, renderWebhooks, webhooksJson, type WebhookFigures } from './webhooks.js';

/** `--name=value` of the command line. */
function flag(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** Fixed sizes of every run (the figures are comparable between runs only if these stay). */
const SETTINGS = {
  rttWarmupRounds: 5,
  rttRounds: 60,
  stageWarmup: 2,
  stageSamples: 5,
  latencyWarmupRounds: 20,
  latencyRounds: 100,
  throughputSeconds: 3,
  coldStartRuns: 5,
  playStartWarmup: 3,
  playStartRuns: 20,
  /** The browser's round trip to the edge in the modelled navigation runs (Chromium's emulation), ms. */
  playStartNetworkRttMs: 40,
} as const;

const markdown = process.argv.includes('--markdown');
/**
 * `--only=rtt`, `scale`, `refusals`, `usage-report`, `webhooks`, `browser` or `cold-start` (bundles
 * and their init, no stack): just that phase (quick iteration); its tables and JSON keys only.
 */
const only = flag('only');
const PHASES = ['rtt', 'scale', 'refusals', 'usage-report', 'webhooks', 'browser', 'cold-start'] as const;
if (only !== undefined && !(PHASES as readonly string[]).includes(only)) throw new Error(`--only takes ${PHASES.join(', ')}`);
/** The engine the run's DynamoDB is, as the report names it. */
const BACKEND = benchBackend() === 'local' ? 'DynamoDB Local' : 'dynalite';
/** The modelled DynamoDB round trip of the RTT latency mode, ms (`--rtt=5`). */
const RTT_MS = Number(flag('rtt') ?? 5);
if (!(RTT_MS > 0)) throw new Error('--rtt takes a positive number of milliseconds');
const started = performance.now();
const progress = (what: string) => process.stderr.write(`bench [${((performance.now() - started) / 1000).toFixed(0)} s] ${what}\n`);

// A run that fails or is interrupted still stops what it started (`run-end.ts`).
stopAllWhenRunFails();
if (only === 'cold-start') {
  // Bundles and fresh processes only: no stack to start.
  const fns = functionNames(routes);
  progress(`cold starts: ${fns.length} functions, bundled and unbundled, ${SETTINGS.coldStartRuns} fresh processes each`);
  const cold = await measureColdStarts(fns, SETTINGS.coldStartRuns);
  progress('done');
  const byFn = (pick: (c: ColdStartFigures) => number) =>
    Object.fromEntries([...cold].map(([fn, c]) => [snake(fn), Number(pick(c).toFixed(1))]));
  const figures = {
    bundleKb: byFn((c) => c.bundleKb),
    initMs: byFn((c) => c.initMs),
    initRatio: byFn((c) => c.unbundledInitMs / c.initMs),
  };
  const checks = bundleTargets(figures);
  const lines = [
    ...renderColdStarts(cold, markdown),
    '',
    ...table(
      markdown,
      ['target', 'this run', 'met'],
      checks.map((x) => [x.target, x.value, x.met ? 'yes' : 'NO']),
    ),
  ];
  const json = { bundle_kb: figures.bundleKb, init_ms: figures.initMs, init_ratio_vs_unbundled: figures.initRatio };
  process.stdout.write(lines.join('\n') + '\n\n' + JSON.stringify(json) + '\n');
  process.exit(0);
}

progress(`starting the local stack on ${BACKEND}`);
const stack = await startBenchStack();
stopWhenRunFails(() => stack.close());
const proxy = await DynamoProxy.start(stack.service.dynamoConnection);
stopWhenRunFails(() => proxy.close());
if (only !== undefined) {
  try {
    await runOnly(only as Exclude<(typeof PHASES)[number], 'cold-start'>);
  } finally {
    await proxy.close();
    await stack.close();
  }
  process.exit(0);
}
let result: BenchResult;
let rtt: RttFigures;
let scale: ScenarioResult[];
let refusals: RefusalFigures;
let usageReport: UsageReportFigures;
let webhooks: WebhookFigures;
let playStart: PlayStartFigures;
try {
  const ops = await benchOperations(stack);
  const [token] = await mintTokens(stack, 1);

  progress(`round-trip stages and capacity of ${ops.length} operations`);
  const stages = await measureStages(stack, ops, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });
  progress('round-trip stages of refusals and replays');
  refusals = await measureRefusals(stack, BACKEND, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });
  progress('DynamoDB calls of a 31-day usage report');
  usageReport = await measureUsageReport(stack, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });

  progress(`latency: ${SETTINGS.latencyRounds} rounds of every operation, each beside a raw GetItem`);
  const extras = floors(stack);
  const latency = await measureLatency(stack, ops, extras, token!, {
    warmup: SETTINGS.latencyWarmupRounds,
    rounds: SETTINGS.latencyRounds,
  });

  progress(`latency in round trips: ${SETTINGS.rttRounds} rounds, every DynamoDB call paying ${RTT_MS} ms`);
  rtt = await measureRttLatency(stack, ops, { rttMs: RTT_MS, warmup: SETTINGS.rttWarmupRounds, rounds: SETTINGS.rttRounds });

  progress(`throughput: 4 runs of ${SETTINGS.throughputSeconds} s`);
  const throughput = await measureThroughput(stack, token!, SETTINGS.throughputSeconds);

  progress('cost inputs: response sizes, stored items');
  const costInputs = await measureCostInputs(stack, ops, token!);

  progress(
    `navigation to the game frame in Chromium: ${SETTINGS.playStartWarmup} warm-up + ${SETTINGS.playStartRuns} runs, locally and at modelled RTTs`,
  );
  playStart = await measurePlayStart(stack, {
    warmup: SETTINGS.playStartWarmup,
    runs: SETTINGS.playStartRuns,
    networkRttMs: SETTINGS.playStartNetworkRttMs,
    dynamoRttMs: RTT_MS,
  });

  scale = await runScale(stack, proxy, progress);
  await proxy.close();
  await stack.close();

  webhooks = await measureWebhooks(progress);

  const fns = functionNames(routes);
  progress(`cold starts: ${fns.length} functions, bundled and unbundled, ${SETTINGS.coldStartRuns} fresh processes each`);
  const cold = await measureColdStarts(fns, SETTINGS.coldStartRuns);

  const raw = { p50: percentile(latency.raw, 50), p99: percentile(latency.raw, 99) };
  const figures = ops.map((op) => {
    const s = stages.get(op.name)!;
    const samples = latency.byName.get(op.name)!;
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    // Lambda bills whole milliseconds, at least one.
    const handlerMs = Math.max(1, Math.ceil(median(stack.log.of(op.name))));
    return { name: op.name, fn: op.fn, ...s, p50, p99, ratioP50: p50 / raw.p50, ratioP99: p99 / raw.p99, handlerMs };
  });
  const floorFigures = extras.map((x) => {
    const samples = latency.byName.get(x.name)!;
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    return { name: x.name, p50, p99, ratioP50: p50 / raw.p50, ratioP99: p99 / raw.p99 };
  });
  const cost = priceLifecycles(figures, stack.log, costInputs);
  const lifecycleUnits = cost.api.read + cost.api.write;
  const byName = (pick: (f: (typeof figures)[number]) => number) => Object.fromEntries(figures.map((f) => [f.name, pick(f)]));
  const coldBy = (pick: (c: { bundleKb: number; initMs: number; unbundledInitMs: number }) => number) =>
    Object.fromEntries([...cold].map(([fn, c]) => [snake(fn), pick(c)]));
  result = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`,
    settings:
      `DynamoDB: ${BACKEND}; stages: ${SETTINGS.stageWarmup} warm-up + ${SETTINGS.stageSamples} recorded requests per operation; ` +
      `latency: ${SETTINGS.latencyWarmupRounds} warm-up + ${SETTINGS.latencyRounds} measured rounds, one request at a time; ` +
      `round-trip latency: ${SETTINGS.rttWarmupRounds} warm-up + ${SETTINGS.rttRounds} measured rounds at RTT ${RTT_MS} ms; ` +
      `throughput: ${SETTINGS.throughputSeconds} s per run; cold start: median of ${SETTINGS.coldStartRuns} fresh processes; ` +
      `scale: F = ${SCALE.factor}`,
    ops: figures,
    raw,
    floors: floorFigures,
    throughput,
    cold,
    cost,
    lifecycleUnits,
    targets: [
      ...checkTargets({
        stages: byName((f) => f.stages),
        ratioP50: byName((f) => f.ratioP50),
        bundleKb: coldBy((c) => c.bundleKb),
        initMs: coldBy((c) => c.initMs),
        initRatio: coldBy((c) => c.unbundledInitMs / c.initMs),
        lifecycleUnits,
        costApi: cost.api.total,
      }),
      ...rttTargets(rtt),
      ...scale.flatMap((x) => x.checks),
      ...webhookTargets(webhooks.events),
    ],
  };
} catch (error) {
  process.stderr.write(`bench: the service's last error lines:\n${stack.log.errors.join('\n')}\n`);
  await proxy.close().catch(() => undefined);
  await stack.close().catch(() => undefined);
  throw error;
}

progress('done');
const tables = [
  renderTables(result, markdown),
  ...renderRefusals(refusals, markdown),
  ...renderUsageReport(usageReport, markdown),
  ...renderWebhooks(webhooks, markdown),
  ...renderRtt(rtt, markdown),
  ...renderScale(scale, markdown),
  '',
  ...renderBrowser(
    BROWSER_LIFECYCLE.map((name) => {
      const step = result.cost.steps.get(name)!;
      return { name, stages: result.ops.find((o) => o.name === name)!.stages, ...step.capacity, billedMs: step.billedMs };
    }),
    { api: result.cost.api.total, browser: result.cost.browser.total, browserRequests: result.cost.browser.requests },
    playStart,
    markdown,
  ),
].join('\n');
const figures = JSON.parse(figuresJson(result)) as Record<string, unknown> & { cost_per_million_usd: Record<string, unknown> };
const json = {
  ...figures,
  // A million webhook events beside the million lifecycles (test/bench/webhooks.ts).
  cost_per_million_usd: { ...figures.cost_per_million_usd, webhook_events: Number(webhooks.cost.total.toFixed(4)) },
  ...refusalsJson(refusals),
  ...usageReportJson(usageReport),
  ...webhooksJson(webhooks),
  ...rttScaleJson(rtt, scale),
  browser_lifecycle_requests: result.cost.browser.requests,
  ...playStartJson(playStart),
};
process.stdout.write(tables + '\n\n' + JSON.stringify(json) + '\n');
// Connections the load generator or the SDK keep alive must not hold the process open.
process.exit(0);

/** `--only=rtt` / `scale` / `refusals` / `usage-report` / `webhooks` / `browser`: one phase, its tables, and a JSON line with its keys and its targets. */
async function runOnly(phase: Exclude<(typeof PHASES)[number], 'cold-start'>): Promise<void> {
  const lines: string[] = [];
  let json: Record<string, unknown>;
  let checks;
  if (phase === 'browser') {
    // Only the lifecycles' operations: their stages and capacity, their handler time at the modelled RTT, their answers' sizes.
    const names = new Set<string>([...API_LIFECYCLE, ...BROWSER_LIFECYCLE]);
    const ops = (await benchOperations(stack)).filter((op) => names.has(op.name));
    progress(`stages and capacity of the lifecycles' ${ops.length} operations`);
    const stages = await measureStages(stack, ops, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });
    progress(`latency in round trips: ${SETTINGS.rttRounds} rounds, every DynamoDB call paying ${RTT_MS} ms`);
    await measureRttLatency(stack, ops, { rttMs: RTT_MS, warmup: SETTINGS.rttWarmupRounds, rounds: SETTINGS.rttRounds });
    const [token] = await mintTokens(stack, 1);
    const costInputs = await measureCostInputs(stack, ops, token!);
    const figures = ops.map((op) => ({
      name: op.name,
      ...stages.get(op.name)!,
      handlerMs: Math.max(1, Math.ceil(median(stack.log.of(op.name)))),
    }));
    const cost = priceLifecycles(figures, stack.log, costInputs);
    progress(
      `navigation to the game frame in Chromium: ${SETTINGS.playStartWarmup} warm-up + ${SETTINGS.playStartRuns} runs, locally and at modelled RTTs`,
    );
    const start = await measurePlayStart(stack, {
      warmup: SETTINGS.playStartWarmup,
      runs: SETTINGS.playStartRuns,
      networkRttMs: SETTINGS.playStartNetworkRttMs,
      dynamoRttMs: RTT_MS,
    });
    progress('done');
    const steps = BROWSER_LIFECYCLE.map((name) => {
      const step = cost.steps.get(name)!;
      return { name, stages: stages.get(name)!.stages, ...step.capacity, billedMs: step.billedMs };
    });
    const totals = { api: cost.api.total, browser: cost.browser.total, browserRequests: cost.browser.requests };
    const out = { cost_per_million_usd: costJson(cost), browser_lifecycle_requests: cost.browser.requests, ...playStartJson(start) };
    process.stdout.write(renderBrowser(steps, totals, start, markdown).join('\n') + '\n\n' + JSON.stringify(out) + '\n');
    return;
  }
  if (phase === 'webhooks') {
    const r = await measureWebhooks(progress);
    progress('done');
    const cost = { cost_per_million_usd: { webhook_events: Number(r.cost.total.toFixed(4)) } };
    const targets = table(
      markdown,
      ['target', 'this run', 'met'],
      webhookTargets(r.events).map((x) => [x.target, x.value, x.met ? 'yes' : 'NO']),
    );
    process.stdout.write(
      [...renderWebhooks(r, markdown), '', ...targets].join('\n') + '\n\n' + JSON.stringify({ ...webhooksJson(r), ...cost }) + '\n',
    );
    return;
  }
  if (phase === 'usage-report') {
    progress('DynamoDB calls of a 31-day usage report');
    const r = await measureUsageReport(stack, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });
    progress('done');
    process.stdout.write(renderUsageReport(r, markdown).join('\n') + '\n\n' + JSON.stringify(usageReportJson(r)) + '\n');
    return;
  }
  if (phase === 'refusals') {
    progress('round-trip stages of refusals and replays');
    const r = await measureRefusals(stack, BACKEND, { warmup: SETTINGS.stageWarmup, samples: SETTINGS.stageSamples });
    progress('done');
    process.stdout.write(renderRefusals(r, markdown).join('\n') + '\n\n' + JSON.stringify(refusalsJson(r)) + '\n');
    return;
  }
  if (phase === 'rtt') {
    const ops = await benchOperations(stack);
    progress(`latency in round trips: ${SETTINGS.rttRounds} rounds, every DynamoDB call paying ${RTT_MS} ms`);
    const r = await measureRttLatency(stack, ops, { rttMs: RTT_MS, warmup: SETTINGS.rttWarmupRounds, rounds: SETTINGS.rttRounds });
    lines.push(...renderRtt(r, markdown));
    json = rttScaleJson(r, undefined);
    checks = rttTargets(r);
  } else {
    const s = await runScale(stack, proxy, progress);
    lines.push(...renderScale(s, markdown));
    json = rttScaleJson(undefined, s);
    checks = s.flatMap((x) => x.checks);
  }
  lines.push(
    '',
    ...table(
      markdown,
      ['target', 'this run', 'met'],
      checks.map((x) => [x.target, x.value, x.met ? 'yes' : 'NO']),
    ),
  );
  progress('done');
  process.stdout.write(lines.join('\n') + '\n\n' + JSON.stringify(json) + '\n');
}
