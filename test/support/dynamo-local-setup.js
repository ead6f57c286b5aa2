/**
 * Jest global setup of the DynamoDB Local projects (`integration-local`, `mcp-local`,
 * `bundled-local`, or any project run with DYNAMODB_BACKEND=local): one DynamoDB Local JVM per
 * test worker, started before the workers (they inherit DYNAMODB_LOCAL_ENDPOINTS and pick theirs
 * by JEST_WORKER_ID, `infra/local/dynamo.ts`), instead of one JVM per stack. Every stack namespaces
 * its tables with a prefix of its own and deletes them when it stops. Plain JavaScript: jest loads
 * global setup files without the TypeScript transform.
 */
import process from 'node:process';
import { startDynamoLocal } from '../../infra/local/dynamo-local.js';

/** @param {{ maxWorkers: number }} globalConfig @param {{ displayName?: { name: string } }} projectConfig */
export default async function setup(globalConfig, projectConfig) {
  const wanted = projectConfig.displayName?.name.endsWith('-local') || process.env.DYNAMODB_BACKEND === 'local';
  // Every project with this setup runs it; the first one starts the processes for all.
  if (!wanted || process.env.DYNAMODB_LOCAL_ENDPOINTS) return;
  const count = Math.max(1, globalConfig.maxWorkers);
  const settled = await Promise.allSettled(Array.from({ length: count }, () => startDynamoLocal()));
  const started = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    // The processes that did start are stopped here: teardown never learns of them, and a running
    // JVM would keep jest from exiting.
    await Promise.all(started.map((p) => p.close()));
    throw failed.reason;
  }
  globalThis.dynamoLocalProcesses = started;
  process.env.DYNAMODB_LOCAL_ENDPOINTS = started.map((p) => p.endpoint).join(',');
}
