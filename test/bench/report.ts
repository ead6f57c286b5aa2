/**
 * The benchmark's output: readable tables (plain, or Markdown for BENCHMARKS.md with `--markdown`)
 * and, as the very last line, one JSON object with the figures.
 */
import type { CapacityUse } from './capacity.js';
import type { ColdStartFigures } from './cold-start.js';
import { PRICES } from './cost.js';
import { costJson, renderCost } from './report-cost.js';
import type { Lifecycles } from './lifecycles.js';
import { round } from './stats.js';
import { table } from './table.js';
import type { TargetCheck } from './targets.js';
import type { ThroughputFigures } from './throughput.js';

/** Everything a run measured. */
export interface BenchResult {
  readonly date: string;
  readonly machine: string;
  readonly settings: string;
  readonly ops: readonly {
    readonly name: string;
    readonly fn: string;
    readonly stages: number;
    readonly calls: number;
    readonly capacity: CapacityUse;
    readonly picture: string;
    readonly p50: number;
    readonly p99: number;
    readonly ratioP50: number;
    readonly ratioP99: number;
    readonly handlerMs: number;
  }[];
  readonly raw: { readonly p50: number; readonly p99: number };
  /** The calls of an operation issued directly (./floors.ts). */
  readonly floors: readonly {
    readonly name: string;
    readonly p50: number;
    readonly p99: number;
    readonly ratioP50: number;
    readonly ratioP99: number;
  }[];
  readonly throughput: ThroughputFigures;
  readonly cold: ReadonlyMap<string, ColdStartFigures>;
  readonly cost: Lifecycles;
  readonly lifecycleUnits: number;
  readonly targets: readonly TargetCheck[];
}

/** `list-keys` -> `list_keys`. */
export const snake = (name: string) => name.replace(/-/g, '_');

/** The readable report. */
export function renderTables(r: BenchResult, markdown: boolean): string {
  const out: string[] = [];
  const section = (title: string) => out.push('', markdown ? `### ${title}` : `== ${title} ==`, '');
  out.push(markdown ? `Run of ${r.date} on ${r.machine}.` : `Game Session Token Service benchmark, ${r.date}, ${r.machine}`);
  out.push(markdown ? `Settings: ${r.settings}.` : r.settings);

  section('Round trips, capacity and latency per operation (warm path)');
  out.push(
    ...table(
      markdown,
      ['operation', 'stages', 'calls', 'RCU', 'WCU', 'p50 ms', 'p99 ms', 'CPU overhead: p50 / GetItem', 'p99 / GetItem', 'handler ms'],
      [
        ...r.ops.map((o) => [
          o.name,
          String(o.stages),
          String(o.calls),
          fixed(o.capacity.read, 1),
          fixed(o.capacity.write, 1),
          fixed(o.p50, 2),
          fixed(o.p99, 2),
          fixed(o.ratioP50, 2),
          fixed(o.ratioP99, 2),
          String(o.handlerMs),
        ]),
        ['raw GetItem (baseline)', '1', '1', '1.0', '0.0', fixed(r.raw.p50, 2), fixed(r.raw.p99, 2), '1.00', '1.00', '-'],
        ...r.floors.map((f) => [
          `${f.name} (its calls only)`,
          '-',
          '-',
          '-',
          '-',
          fixed(f.p50, 2),
          fixed(f.p99, 2),
          fixed(f.ratioP50, 2),
          fixed(f.ratioP99, 2),
          '-',
        ]),
      ],
    ),
  );
  section('Calls stage by stage (a median sample)');
  out.push(
    ...table(
      markdown,
      ['operation', 'stage 1 | stage 2 | ...'],
      r.ops.map((o) => [o.name, o.picture]),
    ),
  );

  section('Throughput, 16 concurrent clients, requests per second');
  const t = r.throughput;
  out.push(
    ...table(
      markdown,
      ['run', 'per second'],
      [
        ['validate_session (requests)', fixed(t.validate_session, 0)],
        ['create + consume (pairs)', fixed(t.create_consume_pairs, 0)],
        ['raw GetItem', fixed(t.raw_get_item, 0)],
        ['raw UpdateItem', fixed(t.raw_update_item, 0)],
      ],
    ),
  );

  section('Cold start per function (bundle as CDK deploys it; module initialization, median of fresh processes)');
  out.push(...renderColdStarts(r.cold, markdown));

  section(
    `Cost of one million lifecycles, all in (API: create + validate + consume; browser: create + play page + play session (consume and cookie)), prices of ${PRICES.date}, ${PRICES.region}`,
  );
  out.push(...renderCost(r.cost, r.lifecycleUnits, markdown));

  section('Targets');
  out.push(
    ...table(
      markdown,
      ['target', 'this run', 'met'],
      r.targets.map((x) => [x.target, x.value, x.met ? 'yes' : 'NO']),
    ),
  );
  return out.join('\n');
}

/** The JSON line: figures keyed by operation or function name in snake_case, the cost a number. */
export function figuresJson(r: BenchResult): string {
  const byOp = (pick: (o: BenchResult['ops'][number]) => number) => Object.fromEntries(r.ops.map((o) => [o.name, pick(o)]));
  const byFn = (pick: (c: ColdStartFigures) => number) => Object.fromEntries([...r.cold].map(([fn, c]) => [snake(fn), pick(c)]));
  return JSON.stringify({
    round_trip_stages: byOp((o) => o.stages),
    latency_ratio_p50: byOp((o) => round(o.ratioP50)),
    latency_ratio_p99: byOp((o) => round(o.ratioP99)),
    rps: Object.fromEntries(Object.entries(r.throughput).map(([k, v]) => [k, round(v as number, 0)])),
    bundle_kb: byFn((c) => round(c.bundleKb, 1)),
    init_ms: byFn((c) => round(c.initMs, 1)),
    init_ratio_vs_unbundled: byFn((c) => round(c.unbundledInitMs / c.initMs, 1)),
    capacity_units: { ...byOp((o) => round(o.capacity.read + o.capacity.write, 2)), lifecycle: round(r.lifecycleUnits, 2) },
    cost_per_million_usd: costJson(r.cost),
  });
}

function fixed(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

/** The cold-start table: per function, its bundle, its init, and the same handler's init unbundled. */
export function renderColdStarts(cold: ReadonlyMap<string, ColdStartFigures>, markdown: boolean): string[] {
  return table(
    markdown,
    ['function', 'bundle KB', 'init ms', 'unbundled init ms', 'unbundled / bundled'],
    [...cold].map(([fn, c]) => [
      fn,
      fixed(c.bundleKb, 1),
      fixed(c.initMs, 1),
      fixed(c.unbundledInitMs, 1),
      fixed(c.unbundledInitMs / c.initMs, 1),
    ]),
  );
}
