/**
 * What the documents say about the create-session fields beyond their rules: each field's
 * description, registered on the very schemas that validate (`sessions.ts`) for the OpenAPI document
 * and the MCP tool schemas, and "exactly one of game_id or stream_id" as JSON Schema (`oneOf`) for
 * the OpenAPI request body only. Registered by those two (`openapi-document.ts`, `mcp/schemas.ts`) only,
 * so that the other functions' bundles carry no documentation text.
 */
import * as z from 'zod/mini';
import { CreateSessionBody, CreateSessionFields } from './schemas.js';

let registered = false;

/** Register the create-session fields' documentation on their schemas (once per process). */
export function registerSessionDocs(): void {
  if (registered) return;
  registered = true;
  const fields = CreateSessionFields.shape;
  const describe = (schema: z.ZodMiniType, description: string) => z.globalRegistry.add(schema, { description });

  describe(fields.game_id, 'The game to play. Give exactly one of game_id or stream_id (the other absent or null).');
  describe(fields.stream_id, 'The stream to watch. Give exactly one of game_id or stream_id (the other absent or null).');
  describe(fields.external_ref, 'Your own reference (an order, a player), at most 255 characters; returned on validate and consume.');
  describe(
    fields.player_ref,
    'Binds the token to one player: 1 to 128 printable ASCII characters. Only a consume-session whose player_uuid equals it ' +
      'consumes the token (another or none: 403 player_mismatch, the token stays active); play pages refuse it, so your app starts the game.',
  );
  describe(fields.metadata, 'Arbitrary JSON object, at most 4,096 bytes serialized; returned on validate and consume.');

  /**
   * Exactly one of game_id or stream_id: exactly one of the two is an integer (null counts as absent,
   * as for every optional field). The schema's own check enforces the same rule with its message.
   *
   * Registered on the OpenAPI body (`CreateSessionBody`, a copy of the fields) and never on
   * `CreateSessionFields`, which is also the MCP tool `create_session`'s input schema: tool-calling
   * APIs (Anthropic's, Bedrock's, Vertex's, OpenAI's) refuse a tool whose input schema has `oneOf`,
   * `anyOf` or `allOf` at its root, so there the rule is said in words (the fields' descriptions and
   * the tool's) and enforced by the same check (docs/mcp.md, "Tool schemas").
   */
  z.globalRegistry.add(CreateSessionBody, {
    ...z.globalRegistry.get(CreateSessionBody),
    oneOf: [
      { required: ['game_id'], properties: { game_id: { type: 'integer' } } },
      { required: ['stream_id'], properties: { stream_id: { type: 'integer' } } },
    ],
  });
}
