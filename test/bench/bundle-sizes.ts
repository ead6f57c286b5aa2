/**
 * The bundle size of every function of a source tree, built as the benchmark's cold-start measure
 * builds it (`cold-start.ts`): the tree's own `functionCode()` options (infra/functions.ts) mapped to
 * esbuild by the tree's own `cdkEsbuildOptions` (test/support/cdk-esbuild.ts). So an older commit is measured with the options it deployed:
 *
 *   mkdir /tmp/before && git archive a5e1584 | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
 *   npx tsx test/bench/bundle-sizes.ts /tmp/before .
 *
 * Prints one tab-separated line per tree and function: tree, function, bytes, KB (1,024 bytes, as
 * the benchmark's table), and the repository files that put code into it. Run by hand (BENCHMARKS.md, "Bundles and cold starts"); `npm run bench`
 * measures the current tree's sizes beside the init times.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import type { NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the script needs of a tree: its functions' CDK options and their mapping to esbuild. */
interface TreeBundling {
  readonly functionCode: (name: string) => NodejsFunctionProps;
  readonly cdkEsbuildOptions: (props: NodejsFunctionProps, outfile: string) => BuildOptions;
}

/** The tree's own bundling code, wherever the tree keeps it. */
async function bundlingOf(root: string): Promise<TreeBundling> {
  const mapping = ['test/support/cdk-esbuild.ts', 'test/bench/cold-start.ts']
    .map((file) => join(root, file))
    .find((file) => existsSync(file));
  if (!mapping) throw new Error(`${root}: no cdkEsbuildOptions (test/support/cdk-esbuild.ts or test/bench/cold-start.ts)`);
  const { functionCode } = (await import(pathToFileURL(join(root, 'infra/functions.ts')).href)) as Pick<TreeBundling, 'functionCode'>;
  const { cdkEsbuildOptions } = (await import(pathToFileURL(mapping).href)) as Pick<TreeBundling, 'cdkEsbuildOptions'>;
  return { functionCode, cdkEsbuildOptions };
}

/** How many of the repository's own files put code into a bundle (node_modules not counted). */
function repoFiles(metafile: Metafile): number {
  const inputs = Object.values(metafile.outputs)[0]!.inputs;
  return Object.entries(inputs).filter(([path, input]) => !path.includes('node_modules/') && input.bytesInOutput > 0).length;
}

/** Build every `functions/*.ts` of the tree and print its size and its repository files. */
async function measureTree(root: string, outDir: string): Promise<void> {
  const { functionCode, cdkEsbuildOptions } = await bundlingOf(root);
  const names = readdirSync(join(root, 'functions'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
  for (const name of names) {
    const outfile = join(outDir, `${name}.mjs`);
    const { metafile } = await build({ ...cdkEsbuildOptions(functionCode(name), outfile), metafile: true });
    const bytes = statSync(outfile).size;
    process.stdout.write(`${root}\t${name}\t${bytes}\t${(bytes / 1024).toFixed(1)}\t${repoFiles(metafile)}\n`);
  }
}

const trees = process.argv.slice(2).map((tree) => resolve(tree));
const outDir = mkdtempSync(join(tmpdir(), 'gsts-bundle-sizes-'));
try {
  for (const root of trees.length ? trees : [process.cwd()]) await measureTree(root, outDir);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
