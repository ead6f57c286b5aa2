/**
 * The admin console's build: esbuild bundles `infra/console/main.tsx` (Preact, uPlot, the styles)
 * into content-hashed files under `assets/`, with an `index.html` that names them. The local front
 * serves the result from memory at `/console/`; `cdk synth` writes it into the folder a
 * BucketDeployment uploads. Hashed names let the assets be cached for a year while `index.html`
 * is never cached.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_PATH } from '../shared/platform/route.js';
import type { ConsoleConfig } from './console/config-shape.js';

/** The console's sources. */
const SOURCE = fileURLToPath(new URL('./console/', import.meta.url));

/** The built console: every file by its path relative to `/console/` (`index.html`, `assets/main-<hash>.js`). */
export interface ConsoleFiles {
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly script: string;
  readonly style: string;
}

/** Bundle the console in memory (about a second, synchronous): minified, no source maps (nothing of the sources is published beyond the bundle). */
export function bundleConsole(): ConsoleFiles {
  const result = buildSync({
    entryPoints: [join(SOURCE, 'main.tsx')],
    outdir: join(SOURCE, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    // Code loaded on demand (uPlot, with the first chart) in chunks of its own.
    splitting: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(SOURCE, 'tsconfig.json'),
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    write: false,
  });
  const files = new Map<string, Uint8Array>();
  for (const file of result.outputFiles) files.set(`assets/${basename(file.path)}`, file.contents);
  // The page names the entry's script and its stylesheet; the chunks are the script's own imports.
  const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint);
  const script = entry && `assets/${basename(entry[0])}`;
  const style = entry?.[1].cssBundle && `assets/${basename(entry[1].cssBundle)}`;
  if (!script || !style) throw new Error(`console build produced no script or no stylesheet: ${[...files.keys()].join(', ')}`);
  const index = consoleIndex(readFileSync(join(SOURCE, 'index.html'), 'utf8'), script, style);
  files.set('index.html', new TextEncoder().encode(index));
  return { files, script, style };
}

/**
 * Build the console into `outDir` (emptied first), as the BucketDeployment uploads it. Synchronous:
 * CDK's local bundling (`infra/console-site.ts`) calls it while the app is constructed.
 */
export function buildConsole(outDir: string): ConsoleFiles {
  const built = bundleConsole();
  rmSync(outDir, { recursive: true, force: true });
  for (const [name, contents] of built.files) {
    mkdirSync(dirname(join(outDir, name)), { recursive: true });
    writeFileSync(join(outDir, name), contents);
  }
  return built;
}

/** The page template with its two placeholders (`main.js`, `main.css`) replaced by the hashed names. */
function consoleIndex(template: string, script: string, style: string): string {
  const page = template.replace('href="main.css"', `href="${style}"`).replace('src="main.js"', `src="${script}"`);
  if (!page.includes(script) || !page.includes(style)) throw new Error('infra/console/index.html must reference main.js and main.css');
  return page;
}

/** The console's Content-Security-Policy: its own scripts and styles, the API, and the identity provider. */
export function consoleCsp(issuerOrigins: readonly string[]): string {
  const idp = [...new Set(issuerOrigins)].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${idp}`,
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    `form-action ${idp}`,
  ].join('; ');
}

/** What the console's `config.json` says, deployed or local: the provider, its client, the audience, the API. */
export function consoleConfig(settings: { issuer: string; clientId: string; audience: string }): ConsoleConfig {
  return { issuer: settings.issuer, client_id: settings.clientId, audience: settings.audience, api_base: API_PATH };
}
