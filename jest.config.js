/**
 * Test tiers as jest projects, each runnable alone: `npm test -- --selectProjects unit`.
 * TypeScript runs through ts-jest in ESM mode (transpile only; `npm run typecheck` checks types).
 *
 * The tiers that touch DynamoDB run twice when a JRE is present: on dynalite (`integration`, `mcp`,
 * `infra`) and on AWS's DynamoDB Local (`integration-local`, `mcp-local`, `bundled-local`: one
 * DynamoDB Local process per test worker, docs/dynamodb-backends.md). Without `java` the second
 * pass is skipped with one line saying so.
 */
import console from 'node:console';
import process from 'node:process';
import { javaAvailable } from './infra/local/dynamo-local.js';

/**
 * The global setup that starts one DynamoDB Local per test worker: always for the `-local`
 * projects, only with DYNAMODB_BACKEND=local for the dynalite tiers. Two files because Jest runs
 * a setup file once per path, handing it the first test's project (test/support/dynamo-local-setup.js).
 */
const dynamoSetup = {
  globalSetup: '<rootDir>/test/support/dynamo-local-setup-when-asked.js',
  globalTeardown: '<rootDir>/test/support/dynamo-local-teardown.js',
};
const dynamoLocalSetup = { ...dynamoSetup, globalSetup: '<rootDir>/test/support/dynamo-local-setup.js' };

const tier = (name, extra = {}) => ({
  displayName: name,
  // Node's environment, printing a file's console output only for what failed (TEST_CONSOLE=all: all of it).
  testEnvironment: '<rootDir>/test/support/quiet-environment.js',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  ...extra,
});

/** A tier again on DynamoDB Local. */
const onDynamoLocal = (name, testMatch) =>
  tier(`${name}-local`, { testMatch, setupFiles: ['<rootDir>/test/support/backend-local.js'], ...dynamoLocalSetup });

/** The infra tests that run the bundles against DynamoDB (the rest synthesize or read files). */
const BUNDLED = ['bundle-lifecycle', 'bundle-mcp', 'seed-account'].map((f) => `<rootDir>/test/infra/${f}.test.ts`);

const localPass = javaAvailable()
  ? [
      onDynamoLocal('integration', ['<rootDir>/test/integration/**/*.test.ts']),
      onDynamoLocal('mcp', ['<rootDir>/test/mcp/**/*.test.ts']),
      onDynamoLocal('bundled', BUNDLED),
    ]
  : [];
if (localPass.length === 0 && !process.env.JEST_WORKER_ID) {
  const reason = 'DynamoDB Local pass skipped: no `java` on PATH (install a JRE, e.g. apt-get install openjdk-17-jre-headless).';
  // CI installs a JRE (`.ci/run` sets REQUIRE_EVERY_TIER=1): there, no java is a failed install, not a skip.
  if (process.env.REQUIRE_EVERY_TIER === '1') throw new Error(`REQUIRE_EVERY_TIER=1: ${reason}`);
  console.warn(reason);
}

export default {
  projects: [
    tier('unit'),
    tier('integration', dynamoSetup),
    tier('infra', dynamoSetup),
    tier('browser'),
    tier('mcp', dynamoSetup),
    ...localPass,
  ],
  // The reliability figures (requests fuzzed, faults injected, races, log lines scanned) after a run.
  // Each failure once, where its file reports it: jest's default would repeat every failure in a
  // summary at the end of a run of more than 20 files.
  reporters: [['default', { summaryThreshold: Number.MAX_SAFE_INTEGER }], '<rootDir>/test/support/figures-reporter.js'],
  testTimeout: 30_000,
  // One worker per core, in worker processes even on a 2-core machine (Jest would otherwise run in
  // band there): a worker that has grown past the limit after a file is replaced. Jest's ESM module
  // registries are not freed, so one process running every file slowed to half speed as it grew
  // (full run on 2 cores: 586 s in band, 434 s with one recycled worker, 286 s with two).
  maxWorkers: '100%',
  workerIdleMemoryLimit: '1GB',
};
