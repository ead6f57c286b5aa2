/**
 * CDK's bundling of a function as esbuild options: what `NodejsFunction` does with the options
 * `infra/functions.ts` gives it (`functionCode()`), mapped to esbuild's API the way CDK maps them to
 * its command line. The bundled tests build the functions with it, and so does the benchmark's
 * cold-start measure; an option CDK would honour and this does not mirror fails the build.
 */
import type { NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { PROJECT_ROOT } from '../../infra/functions.js';

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
    throw new Error(
      `cdkEsbuildOptions does not mirror the bundling option(s) ${unknown.join(', ')}: add them to test/support/cdk-esbuild.ts`,
    );
  const runtime = props.runtime?.name.match(/nodejs(\d+)/)?.[1];
  if (!b.target && !runtime) throw new Error('no esbuild target: neither bundling.target nor a Node.js runtime');
  const alias: Record<string, string> = {};
  for (const [key, value] of Object.entries(b.esbuildArgs ?? {})) {
    const values = (Array.isArray(value) ? value : [value]).map(String);
    if (key === '--alias') for (const v of values) alias[v.split('=')[0]!] = v.split('=').slice(1).join('=');
    else if (key.startsWith('--alias:')) alias[key.slice('--alias:'.length)] = values[0]!;
    else throw new Error(`cdkEsbuildOptions does not mirror esbuildArgs ${key}: add it to test/support/cdk-esbuild.ts`);
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
