/**
 * Test tiers as jest projects, each runnable alone: `npm test -- --selectProjects unit`.
 * TypeScript runs through ts-jest in ESM mode (transpile only; `npm run typecheck` checks types).
 */
const tier = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  ...extra,
});

export default {
  projects: [tier('unit'), tier('integration'), tier('infra'), tier('browser'), tier('mcp')],
  // The reliability figures (requests fuzzed, faults injected, races, log lines scanned) after a run.
  reporters: ['default', '<rootDir>/test/support/figures-reporter.js'],
  testTimeout: 30_000,
};
