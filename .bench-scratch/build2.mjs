import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
const [entry, out] = process.argv.slice(2);
const plugins = [{ name: 'zodns', setup(b) { b.onLoad({ filter: /shared\/.*\.ts$/ }, (a) => ({ contents: readFileSync(a.path, 'utf8').replace("import { z } from 'zod';", "import * as z from 'zod';"), loader: 'ts' })); } }];
await esbuild.build({ entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node24', mainFields: ['module', 'main'], minify: false, keepNames: true, banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" }, plugins, alias: { '@aws-sdk/credential-provider-node': './.bench-scratch/creds.mjs' }, logLevel: 'warning' });
