/**
 * What `npm start` prints: links to open and curl lines to paste. Every line works verbatim from any
 * folder and with any `DATA_DIR` (absolute paths are written into it, quoted for the shell), and
 * the lifecycle lines hand the minted token on through `$TOKEN` (no placeholder to fill in).
 */
import { resolve } from 'node:path';
import type { DynamoBackend } from './dynamo.js';
import { DEMO_USERS } from './seed.js';

/** What the guide needs to know about the running service. */
export interface GuideInputs {
  readonly baseUrl: string;
  /** The data folder as given (relative to the working folder, or absolute). */
  readonly dataDir: string;
  /** A fresh single-use link to play game 101. */
  readonly playLink: string;
  /** The repository folder (where `npm run token` is defined). */
  readonly repoDir: string;
  /** The DynamoDB the service runs on. */
  readonly dynamoDescription: string;
  /** Which engine that is: the hint on how to switch is printed on the default one only. */
  readonly dynamoBackend: DynamoBackend['kind'];
}

/** `value` as one shell word, whatever characters it holds. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A shell expression printing one field of the credentials file (`field` is a JS property path). */
const fromCredentials = (file: string, field: string) => `$(node -p 'require(process.argv[1])${field}' ${shellQuote(file)})`;

/** The text `npm start` prints once the service listens. */
export function startGuide({ baseUrl, dataDir, playLink, repoDir, dynamoDescription, dynamoBackend }: GuideInputs): string {
  const data = resolve(dataDir);
  const credentials = resolve(data, 'dev-credentials.json');
  const api = `${baseUrl}/api/org-api-keys`;
  const token = `DATA_DIR=${shellQuote(data)} npm --prefix ${shellQuote(repoDir)} run -s token -- acme-admin`;
  const switchHint = dynamoBackend === 'dynalite' ? "DYNAMODB_BACKEND=local for AWS's DynamoDB Local; " : '';
  return `
Game Session Token Service (local) listening on ${baseUrl}
Admin console (sign in as a demo user: acme-admin manages org 1): ${baseUrl}/console/
Data folder: ${data}   Credentials: ${credentials}
DynamoDB: ${dynamoDescription}   (${switchHint}docs/dynamodb-backends.md)

Play game 101 once (a fresh single-use link; open it again in another browser to see it refused):
  ${playLink}
Game 102 needs no token: ${baseUrl}/play/game/102

Webhooks (docs/webhooks.md): register this run's development receiver for org 1's events, then follow the lifecycle
below (or play the link) and watch the signed deliveries arrive, each verified, at ${baseUrl}/dev/webhooks
  curl -s -X POST '${api}?action=create-webhook' -H 'Content-Type: application/json' \\
    -H "Authorization: Bearer ${fromCredentials(credentials, '.bearer_tokens["acme-admin"]')}" \\
    -d '{"org_id":1,"url":"${baseUrl}/dev/webhooks/demo","events":["*"]}'

A session's lifecycle (demo key of org 1, game 101); paste the lines in order, from any folder.
Mint a token into $TOKEN:
  TOKEN=$(curl -s -X POST '${api}?action=create-session' -H 'Content-Type: application/json' \\
    -H "x-api-key: ${fromCredentials(credentials, '.api_key')}" -d '{"game_id":101}' \\
    | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.token'); echo "$TOKEN"
Validate it (read-only):
  curl -s "${api}?action=validate-session&token=$TOKEN"
Consume it (once):
  curl -s -X POST '${api}?action=consume-session' -H 'Content-Type: application/json' -d "{\\"token\\":\\"$TOKEN\\"}"

List the API keys of org 1 (bearer token of the seeded admin acme-admin, issued by the local identity provider at this start, valid 12 h):
  curl -s '${api}?org_id=1' -H "Authorization: Bearer ${fromCredentials(credentials, '.bearer_tokens["acme-admin"]')}"
A fresh bearer token for a demo user (${DEMO_USERS.map((u) => u.subject).join(', ')}), while this service runs:
  ${token}

Identity provider (development only: sign in as a demo user, no password; docs/api.md "Locally: the development provider"):
  ${baseUrl}/oidc/.well-known/openid-configuration

MCP server for agents (demo MCP key: mcp_api_key in the credentials file; see docs/mcp.md):
  ${baseUrl}/api/mcp

Interface description (OpenAPI 3.1): ${baseUrl}/api/openapi.json
`;
}
