/**
 * Jest setup file of the `*-local` projects: their stacks run on DynamoDB Local
 * (`infra/local/dynamo.ts`). The test file's own `process` (jest gives each file a copy of the
 * environment), not `node:process`, so that the worker's next file of a dynalite project is untouched.
 *
 * The file fails at once when the run's global setup started no DynamoDB Local per worker
 * (`dynamo-local-setup.js`): each stack would start a JVM of its own, with its data in the stack's
 * folder, which is slower and not the setup these tests describe.
 */
if (!globalThis.process.env.DYNAMODB_LOCAL_ENDPOINTS) {
  throw new Error('DYNAMODB_LOCAL_ENDPOINTS is not set: the global setup test/support/dynamo-local-setup.js did not run for this project');
}
globalThis.process.env.DYNAMODB_BACKEND = 'local';
