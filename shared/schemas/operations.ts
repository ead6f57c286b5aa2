/**
 * THE schema registry: per operation of the routes table, the zod schemas of its request and
 * response. The functions validate with these very schemas, and the OpenAPI generator reads them
 * here; a route without an entry is still documented, from its row alone.
 */
import * as z from 'zod/mini';
import type { OperationName } from '../routes.js';
import { AuditLogPage, AuditLogQuery } from './audit.js';
import { withMeta } from './common.js';
import {
  ApiKeyView,
  CreatedApiKey,
  CreateKeyBody,
  DeletedApiKey,
  DeleteKeyQuery,
  ListKeysQuery,
  RotatedApiKey,
  RotateKeyBody,
  UpdateKeyBody,
} from './keys.js';
import { McpRequestBody, McpResponseBody } from './mcp.js';
import {
  ConsumedSession,
  ConsumeSessionBody,
  CreatedSession,
  CreateSessionBody,
  IdempotencyKeyHeader,
  ReplayedHeader,
  RevokeSessionBody,
  SessionView,
  ValidateSessionQuery,
} from './sessions.js';

/** The schemas of one operation. */
export interface OperationSchemas {
  /** Query parameters (strings on the wire). */
  readonly query?: z.core.$ZodObject;
  /** The JSON request body. */
  readonly body?: z.core.$ZodType;
  /** `data` of the success envelope, or the whole body when `envelope` is false. */
  readonly response: z.core.$ZodType;
  /** false: the answer is the document itself, not `{success, data}`. */
  readonly envelope?: boolean;
  /** Media type of a success answer (default `application/json`). */
  readonly contentType?: string;
  /** Request headers beyond the credential. */
  readonly headers?: z.core.$ZodObject;
  /** Headers of a success answer beyond the rate-limit ones. */
  readonly responseHeaders?: z.core.$ZodObject;
  /** Statuses the operation answers beyond those its credential and its input imply. */
  readonly errors?: readonly number[];
}

export const operationSchemas: Partial<Record<OperationName, OperationSchemas>> = {
  'create-session': {
    body: CreateSessionBody,
    response: CreatedSession,
    headers: IdempotencyKeyHeader,
    responseHeaders: ReplayedHeader,
    errors: [409, 422],
  },
  'validate-session': { query: ValidateSessionQuery, response: SessionView, errors: [404] },
  'consume-session': { body: ConsumeSessionBody, response: ConsumedSession, errors: [410] },
  'revoke-session': { body: RevokeSessionBody, response: SessionView, errors: [404, 410] },
  'list-keys': { query: ListKeysQuery, response: z.array(ApiKeyView) },
  'create-key': { body: CreateKeyBody, response: CreatedApiKey },
  'update-key': { body: UpdateKeyBody, response: ApiKeyView, errors: [404, 409] },
  'delete-key': { query: DeleteKeyQuery, response: DeletedApiKey, errors: [404] },
  'rotate-key': { body: RotateKeyBody, response: RotatedApiKey, errors: [404, 409] },
  'audit-log': { query: AuditLogQuery, response: AuditLogPage },
  // The JSON-RPC answer is the MCP SDK's, not the envelope; HTTP-level refusals (401, 403, 429) are.
  // `Idempotency-Key` applies to tools/call of create_session only (the same rules as REST).
  mcp: {
    body: McpRequestBody,
    response: McpResponseBody,
    envelope: false,
    headers: IdempotencyKeyHeader,
    responseHeaders: ReplayedHeader,
    errors: [409, 422],
  },
  openapi: {
    response: withMeta(z.record(z.string(), z.unknown()), { description: 'An OpenAPI 3.1 document.' }),
    envelope: false,
  },
};
