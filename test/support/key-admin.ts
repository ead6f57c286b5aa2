/**
 * Helpers of the key-management files (`test/integration/keys-admin*.test.ts`): the fields a key's
 * view has, and calls over the file's stack and admin API.
 */
import { expect } from '@jest/globals';
import type { StackContext } from './describe-with-stack.js';

/** Every field of a key as the list, update and create answers show it (create adds `key`). */
export const VIEW_FIELDS = [
  'allowed_game_ids',
  'allowed_stream_ids',
  'created_at',
  'description',
  'expires_at',
  'id',
  'is_active',
  'key_prefix',
  'last_used_at',
  'mcp_scopes',
  'name',
  'org_id',
  'rate_limit_per_day',
  'rate_limit_per_minute',
  'rotated_from',
  'rotated_to',
  'updated_at',
];
/** An ISO 8601 instant in UTC with milliseconds. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The calls the key-management tests make, over this stack and admin API. */
export function keyAdminCalls({ stack, admin }: StackContext) {
  /** create-session with this raw key (a game of org 1 by default). */
  const createSession = (key: string, body: unknown = { game_id: 101 }) => stack.post('create-session', body, { 'x-api-key': key });
  /** The instant `ms` from now by the stack's clock, as ISO 8601. */
  const isoIn = (ms: number) => new Date(stack.clock.now() + ms).toISOString();
  /** Create a key of org 1 through the admin API (the test fails unless it is created). */
  async function newKey(body: Record<string, unknown> = {}): Promise<{ id: number; key: string; data: any }> {
    const res = await admin.create({ org_id: 1, name: 'test key', ...body });
    expect(res.status).toBe(200);
    return { id: res.body.data.id, key: res.body.data.key, data: res.body.data };
  }
  return { createSession, isoIn, newKey };
}
