/** Jest global teardown: stop the DynamoDB Local processes `dynamo-local-setup.js` started (once). */
import process from 'node:process';

export default async function teardown() {
  const started = globalThis.dynamoLocalProcesses ?? [];
  globalThis.dynamoLocalProcesses = [];
  delete process.env.DYNAMODB_LOCAL_ENDPOINTS;
  await Promise.all(started.map((p) => p.close()));
}
