import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
const [entry, out, ...flags] = process.argv.slice(2);
const plugins = [];
if (flags.includes('zod')) plugins.push({ name: 'zodns', setup(b) { b.onLoad({ filter: /shared\/.*\.ts$/ }, (a) => ({ contents: readFileSync(a.path, 'utf8').replace("import { z } from 'zod';", "import * as z from 'zod';"), loader: 'ts' })); } });
const alias = flags.includes('creds') ? { '@aws-sdk/credential-provider-node': './.bench-scratch/creds.mjs' } : {};
const r = await esbuild.build({ entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node24', mainFields: ['module', 'main'], minify: true, keepNames: true, banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" }, plugins, alias, metafile: true, logLevel: 'warning' });
const o = Object.values(r.metafile.outputs)[0];
const by = {};
for (const [p, i] of Object.entries(o.inputs)) { const k = p.replace(/^node_modules\//, '').split('/').slice(0, p.includes('node_modules/@') ? 2 : 1).join('/'); by[k] = (by[k] || 0) + i.bytesInOutput; }
console.log(out, (o.bytes / 1024).toFixed(1), 'KB');
if (flags.includes('v')) Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([k, v]) => console.log((v / 1024).toFixed(1).padStart(8), k));
