/**
 * Jest setup file of the `*-local` projects: their stacks run on DynamoDB Local
 * (`infra/local/dynamo.ts`). The test file's own `process` (jest gives each file a copy of the
 * environment), not `node:process`, so that the worker's next file of a dynalite project is untouched.
 */
globalThis.process.env.DYNAMODB_BACKEND = 'local';
