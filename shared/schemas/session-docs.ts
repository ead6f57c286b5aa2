/**
 * What the documents say about the create-session fields beyond their rules: each field's
 * description and "exactly one of game_id or stream_id" as JSON Schema (`oneOf`), registered on the
 * very schemas that validate (`sessions.ts`) for the OpenAPI document and the MCP tool schemas.
 * Imported for its effect by those two (`openapi.ts`, `mcp.ts`) only, so that the functions' bundles
 * carry no documentation text.
 */
import * as z from 'zod/mini';
import { CreateSessionFields } from './sessions.js';

const fields = CreateSessionFields.shape;
const describe = (schema: z.ZodMiniType, description: string) => z.globalRegistry.add(schema, { description });

describe(fields.game_id, 'The game to play. Exactly one of game_id or stream_id.');
describe(fields.stream_id, 'The stream to watch. Exactly one of game_id or stream_id.');
describe(fields.external_ref, 'Your own reference (an order, a player), at most 255 characters; returned on validate and consume.');
describe(fields.metadata, 'Arbitrary JSON object, at most 4,096 bytes serialized; returned on validate and consume.');

/**
 * Exactly one of game_id or stream_id: exactly one of the two is an integer (null counts as absent,
 * as for every optional field). The schema's own check enforces the same rule with its message.
 */
z.globalRegistry.add(CreateSessionFields, {
  oneOf: [
    { required: ['game_id'], properties: { game_id: { type: 'integer' } } },
    { required: ['stream_id'], properties: { stream_id: { type: 'integer' } } },
  ],
});
