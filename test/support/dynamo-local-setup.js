/**
 * Jest global setup of the DynamoDB Local projects (`integration-local`, `mcp-local`,
 * `bundled-local`): one DynamoDB Local JVM per test worker, started before the workers (they
 * inherit DYNAMODB_LOCAL_ENDPOINTS and pick theirs by JEST_WORKER_ID, `infra/local/dynamo.ts`),
 * instead of one JVM per stack. Every stack namespaces its tables with a prefix of its own and
 * deletes them when it stops. They keep one database whatever the credentials (`-sharedDb`): the
 * bundles sign as a Lambda role would, the local client as the local run does. Plain JavaScript: jest loads global setup files without the
 * TypeScript transform.
 *
 * Jest runs a global setup file once per path, with the project of the first test (in run order)
 * that names it, so this file is named only by the `-local` projects and starts the JVMs whatever
 * it is handed; the dynalite tiers name `dynamo-local-setup-when-asked.js`. (One file for both
 * read the project it was handed: on a clean clone the run order put a dynalite test first, no
 * JVMs started, and every `-local` stack started a JVM of its own.)
 */
import process from 'node:process';
import { startDynamoLocal } from '../../infra/local/dynamo-local.js';

/**
 * Start one DynamoDB Local per test worker, unless a setup of this run already did.
 * @param {{ maxWorkers: number }} globalConfig
 */
export async function startWorkerDynamoLocals(globalConfig) {
  if (process.env.DYNAMODB_LOCAL_ENDPOINTS) return;
  const count = Math.max(1, globalConfig.maxWorkers);
  const settled = await Promise.allSettled(Array.from({ length: count }, () => startDynamoLocal({ shared: true })));
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

/** Jest's global setup entry: it hands the global config first. */
export default startWorkerDynamoLocals;
