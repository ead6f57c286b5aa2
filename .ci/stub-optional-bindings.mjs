#!/usr/bin/env node
// Usage: node .ci/stub-optional-bindings.mjs package-lock.json  (after any `npm install` that rewrites the lock)
// Adds lock entries for optional platform bindings the local registry does not serve, so that
// `npm ci` skips them by os/cpu instead of rejecting the lock as out of sync.
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
const file = process.argv[2];
const lock = JSON.parse(readFileSync(file, 'utf8'));
const parent = lock.packages['node_modules/unrs-resolver'];
const cpus = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32'];
let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies)) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const parts = name.replace('@unrs/resolver-binding-', '').split('-');
  const os = parts[0];
  const cpu = parts.find((p) => cpus.includes(p)) ?? parts[1];
  lock.packages[key] = { version, dev: true, license: 'MIT', optional: true, os: [os], cpu: [cpu] };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`added ${added} stub entries\n`);
