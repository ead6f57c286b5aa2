/** `npm start`: the service with demo data on an embedded DynamoDB. PORT (3000), DATA_DIR (.local). */
import { startLocalService } from './service.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.local';
const service = await startLocalService({ port, dataDir });
const { baseUrl, credentials } = service;
const api = `${baseUrl}/api/org-api-keys`;

console.log(`
Game Session Token Service (local) listening on ${baseUrl}
Data folder: ${dataDir}   Credentials: ${dataDir}/dev-credentials.json

Create a session (demo key of org 1, game 101):
  curl -s -X POST '${api}?action=create-session' -H 'Content-Type: application/json' \\
    -H "x-api-key: $(node -p "require('./${dataDir}/dev-credentials.json').api_key")" -d '{"game_id":101}'

Validate it (read-only):
  curl -s '${api}?action=validate-session&token=<token>'

Consume it (once):
  curl -s -X POST '${api}?action=consume-session' -H 'Content-Type: application/json' -d '{"token":"<token>"}'
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.close().then(() => process.exit(0));
  });
}
void credentials;
