/**
 * Jest global setup of the dynalite tiers that touch DynamoDB (`integration`, `infra`, `mcp`):
 * nothing, unless the run asks for DynamoDB Local (`DYNAMODB_BACKEND=local npm test -- --selectProjects
 * integration`); then one JVM per test worker, as for the `-local` projects (`dynamo-local-setup.js`,
 * which says why the two are separate files).
 */
import process from 'node:process';
import { startWorkerDynamoLocals } from './dynamo-local-setup.js';

/** @param {{ maxWorkers: number }} globalConfig */
export default async function setup(globalConfig) {
  if (process.env.DYNAMODB_BACKEND === 'local') await startWorkerDynamoLocals(globalConfig);
}
