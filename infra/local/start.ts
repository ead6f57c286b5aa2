/**
 * `npm start`: the service with demo data on an embedded DynamoDB. PORT (3000), DATA_DIR (.local);
 * DYNAMODB_BACKEND, DYNAMODB_ENDPOINT and DYNAMODB_TABLE_PREFIX choose the DynamoDB (`docs/dynamodb-backends.md`).
 */
import { demoPlayUrl } from './demo-game.js';
import { startLocalService } from './service.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.local';
const service = await startLocalService({ port, dataDir, demoMcpKey: true });
const { baseUrl, credentials } = service;
const api = `${baseUrl}/api/org-api-keys`;
const playLink = await demoPlayUrl(service.services, credentials.api_key, baseUrl);

console.log(`
Game Session Token Service (local) listening on ${baseUrl}
Data folder: ${dataDir}   Credentials: ${dataDir}/dev-credentials.json
DynamoDB: ${service.dynamoDescription}   (DYNAMODB_BACKEND=local for AWS's DynamoDB Local; docs/dynamodb-backends.md)

Play game 101 once (a fresh single-use link; open it again in another browser to see it refused):
  ${playLink}
Game 102 needs no token: ${baseUrl}/play/game/102

Create a session (demo key of org 1, game 101):
  curl -s -X POST '${api}?action=create-session' -H 'Content-Type: application/json' \\
    -H "x-api-key: $(node -p "require('./${dataDir}/dev-credentials.json').api_key")" -d '{"game_id":101}'

Validate it (read-only):
  curl -s '${api}?action=validate-session&token=<token>'

Consume it (once):
  curl -s -X POST '${api}?action=consume-session' -H 'Content-Type: application/json' -d '{"token":"<token>"}'

List the API keys of org 1 (bearer token of the seeded admin acme-admin, valid 12 h):
  curl -s '${api}?org_id=1' \\
    -H "Authorization: Bearer $(node -p "require('./${dataDir}/dev-credentials.json').bearer_tokens['acme-admin']")"

MCP server for agents (demo MCP key: mcp_api_key in the credentials file; see README "MCP server"):
  ${baseUrl}/api/mcp

Interface description (OpenAPI 3.1): ${baseUrl}/api/openapi.json
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.close().then(() => process.exit(0));
  });
}
void credentials;
