/**
 * `npm start`: the service with demo data on an embedded DynamoDB. PORT (3000), DATA_DIR (.local);
 * DYNAMODB_BACKEND, DYNAMODB_ENDPOINT and DYNAMODB_TABLE_PREFIX choose the DynamoDB (`docs/dynamodb-backends.md`).
 */
// First, for its effect: the log form, before the logger's module loads.
import './log-format-default.js';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localConsole } from './console.js';
import { demoPlayUrl } from './demo-game.js';
import { startGuide } from './guide.js';
import { PortUnavailable, startLocalService, type LocalService } from './service.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.local';

/** The service, or (its port unavailable) one line saying what to do, and exit 1: nothing was created. */
async function start(): Promise<LocalService> {
  try {
    return await startLocalService({ port, dataDir, demoMcpKey: true });
  } catch (error) {
    if (!(error instanceof PortUnavailable)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

const service = await start();
// Built now, so that a broken console build shows at start rather than on the first visit.
localConsole();
const playLink = await demoPlayUrl(service.services, service.credentials.api_key, service.baseUrl);
const repoDir = resolve(fileURLToPath(new URL('../..', import.meta.url)));
console.log(
  startGuide({
    baseUrl: service.baseUrl,
    dataDir,
    playLink,
    repoDir,
    dynamoDescription: service.dynamoDescription,
    dynamoBackend: service.dynamoBackend,
  }),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.close().then(() => process.exit(0));
  });
}
