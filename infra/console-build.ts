/**
 * The admin console's build: esbuild bundles `infra/console/main.tsx` (Preact, uPlot, the styles)
 * into content-hashed files under `assets/`, and writes an `index.html` that names them. The local
 * front serves the result at `/console/`; `cdk synth` builds it into the folder a BucketDeployment
 * uploads. Hashed names let the assets be cached for a year while `index.html` is never cached.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console's sources. */
const SOURCE = fileURLToPath(new URL('./console/', import.meta.url));

/** What a build produced: the folder, and each asset's name (relative to it) by kind. */
export interface ConsoleBuild {
  readonly dir: string;
  readonly script: string;
  readonly style: string;
  /** Every file written under `assets/`, with its size in bytes. */
  readonly assets: Readonly<Record<string, number>>;
}

/**
 * Build the console into `outDir` (emptied first): `index.html` and `assets/<name>-<hash>.{js,css}`.
 * Minified, with no source maps (nothing of the sources is published beyond the bundle).
 */
export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(SOURCE, 'main.tsx')],
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(SOURCE, 'tsconfig.json'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets: Record<string, number> = {};
  for (const [path, meta] of Object.entries(result.metafile.outputs)) assets[`assets/${basename(path)}`] = meta.bytes;
  const script = Object.keys(assets).find((name) => name.endsWith('.js'));
  const style = Object.keys(assets).find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`console build produced no script or no stylesheet: ${Object.keys(assets).join(', ')}`);
  writeFileSync(join(outDir, 'index.html'), consoleIndex(readFileSync(join(SOURCE, 'index.html'), 'utf8'), script, style));
  return { dir: outDir, script, style, assets };
}

/** The page template with its two placeholders (`main.js`, `main.css`) replaced by the hashed names. */
export function consoleIndex(template: string, script: string, style: string): string {
  const page = template.replace('href="main.css"', `href="${style}"`).replace('src="main.js"', `src="${script}"`);
  if (!page.includes(script) || !page.includes(style)) throw new Error('infra/console/index.html must reference main.js and main.css');
  return page;
}
