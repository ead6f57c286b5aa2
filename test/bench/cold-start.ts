/**
 * Cold start per function: the bundle CDK deploys — built here with esbuild from the very options
 * `infra/functions.ts` gives `NodejsFunction` (`functionCode()`), mapped to esbuild's API as CDK
 * does (`test/support/cdk-esbuild.ts`) — its size, and the time a fresh Node process takes to
 * import it (module initialization, median of several processes). Beside it, the same handler
 * unbundled: the function's own code transpiled into one file, every dependency loaded from
 * `node_modules`.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionCode, PROJECT_ROOT } from '../../infra/functions.js';
import { tableEnv } from '../../shared/platform/env.js';
import { cdkEsbuildOptions } from '../support/cdk-esbuild.js';
import { median } from './stats.js';

/** Figures of one function. */
export interface ColdStartFigures {
  /** Size of the deployed bundle, KB (1,024 bytes). */
  readonly bundleKb: number;
  /** Median module initialization of the bundle, ms. */
  readonly initMs: number;
  /** Median module initialization unbundled, ms. */
  readonly unbundledInitMs: number;
}

/** Import a module, print how long it took (ms). Run in a fresh process per measurement. */
const IMPORT_TIMER = `const t = performance.now(); await import(process.argv[2]); process.stdout.write(String(performance.now() - t));`;

/** Build both variants of every function, then time `runs` fresh imports of each, interleaved. */
export async function measureColdStarts(functions: readonly string[], runs: number): Promise<Map<string, ColdStartFigures>> {
  const dir = mkdtempSync(join(tmpdir(), 'gsts-bench-bundles-'));
  try {
    // The unbundled variant resolves its dependencies from the project's node_modules.
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const timer = join(dir, 'import-timer.mjs');
    writeFileSync(timer, IMPORT_TIMER);
    const files = await Promise.all(
      functions.map(async (fn) => {
        const props = functionCode(fn);
        const bundled = join(dir, `${fn}.bundled.mjs`);
        const unbundled = join(dir, `${fn}.unbundled.mjs`);
        const options = cdkEsbuildOptions(props, bundled);
        await build(options);
        // Same code and format, no minification; every package stays an import from node_modules.
        await build({ ...options, outfile: unbundled, packages: 'external', external: [], alias: {}, minify: false });
        return { fn, bundled, unbundled };
      }),
    );
    const samples = new Map(files.map((f) => [f.fn, { bundled: [] as number[], unbundled: [] as number[] }]));
    const env = initEnv();
    for (let i = 0; i < runs; i++) {
      for (const f of files) {
        samples.get(f.fn)!.bundled.push(importTime(timer, f.bundled, env));
        samples.get(f.fn)!.unbundled.push(importTime(timer, f.unbundled, env));
      }
    }
    return new Map(
      files.map((f) => {
        const s = samples.get(f.fn)!;
        return [f.fn, { bundleKb: statSync(f.bundled).size / 1024, initMs: median(s.bundled), unbundledInitMs: median(s.unbundled) }];
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The environment of a function in AWS, as far as module initialization may read it. */
function initEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...tableEnv((_, t) => `bench-${t.id}`),
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
}

function importTime(timer: string, file: string, env: NodeJS.ProcessEnv): number {
  const run = spawnSync(process.execPath, [timer, file], { env, encoding: 'utf8', timeout: 30_000 });
  const ms = Number(run.stdout);
  if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${file} failed (${run.status}): ${run.stderr.slice(0, 500)}`);
  return ms;
}
