/**
 * Cold start per function: the bundle CDK deploys — built here with esbuild from the very options
 * `infra/functions.ts` gives `NodejsFunction` (`functionCode()`), mapped to esbuild's API the way CDK
 * maps them to its command line — its size, and the time a fresh Node process takes to import it
 * (module initialization, median of several processes). Beside it, the same handler unbundled: the
 * function's own code transpiled into one file, every dependency loaded from `node_modules`.
 */
import type { NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type BuildOptions } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionCode, PROJECT_ROOT } from '../../infra/functions.js';
import { tableEnv } from '../../shared/table-env.js';
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

/** Bundling options the mapping below mirrors; any other one fails the run instead of being ignored. */
const MIRRORED = new Set([
  'format',
  'mainFields',
  'target',
  'banner',
  'footer',
  'bundleAwsSDK',
  'externalModules',
  'minify',
  'keepNames',
  'logLevel',
  'define',
  'loader',
  'inject',
  'sourceMap',
  'sourcesContent',
  'esbuildArgs',
]);

/**
 * esbuild options equivalent to CDK's command line for a function (aws-lambda-nodejs `Bundling`):
 * `--bundle --platform=node --target --format --outfile --minify --external --loader --define
 * --log-level --keep-names --banner:js --footer:js --main-fields --inject`, plus `esbuildArgs`.
 */
export function cdkEsbuildOptions(props: NodejsFunctionProps, outfile: string): BuildOptions {
  const b = props.bundling ?? {};
  const unknown = Object.keys(b).filter((k) => !MIRRORED.has(k) && (b as Record<string, unknown>)[k] !== undefined);
  if (unknown.length)
    throw new Error(`the benchmark does not mirror the bundling option(s) ${unknown.join(', ')}: add them to cold-start.ts`);
  const runtime = props.runtime?.name.match(/nodejs(\d+)/)?.[1];
  if (!b.target && !runtime) throw new Error('no esbuild target: neither bundling.target nor a Node.js runtime');
  const alias: Record<string, string> = {};
  for (const [key, value] of Object.entries(b.esbuildArgs ?? {})) {
    const values = (Array.isArray(value) ? value : [value]).map(String);
    if (key === '--alias') for (const v of values) alias[v.split('=')[0]!] = v.split('=').slice(1).join('=');
    else if (key.startsWith('--alias:')) alias[key.slice('--alias:'.length)] = values[0]!;
    else throw new Error(`the benchmark does not mirror esbuildArgs ${key}: add it to cold-start.ts`);
  }
  return {
    entryPoints: [props.entry!],
    outfile,
    bundle: true,
    platform: 'node',
    target: b.target ?? `node${runtime}`,
    format: b.format as BuildOptions['format'],
    minify: b.minify ?? false,
    keepNames: b.keepNames ?? false,
    sourcemap: b.sourceMap ?? false,
    external: b.externalModules ?? (b.bundleAwsSDK ? [] : ['@aws-sdk/*']),
    loader: b.loader as BuildOptions['loader'],
    define: b.define,
    inject: b.inject,
    mainFields: b.mainFields,
    banner: b.banner ? { js: b.banner } : undefined,
    footer: b.footer ? { js: b.footer } : undefined,
    alias,
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'warning',
  };
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
