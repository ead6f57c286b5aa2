import { randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import { type Playable } from '../catalog/index.js';
import type { CatalogStore } from '../catalog/index.js';
import type { KeyCalls } from '../keys/index.js';
import { type ApiKeyRecord } from '../keys/index.js';
import { uniqueRequestId, type CallContext } from '../platform/call.js';
import { isoTime } from '../platform/time.js';
import { NotFound, OutOfScope } from '../platform/errors.js';
import type { Frozen } from '../platform/route.js';
import { type TokenRecord } from './model.js';
import type { CreatedSession as CreatedSessionSchema, CreateSessionFields } from './schemas.js';
import { allowsItem, assertInScope, isRestricted, type Target } from './scope.js';
import { SessionReads, type SessionReadsDeps, type SessionView } from './session-tokens.js';

/** A create-session request, already validated (the schema's output: exactly one of game_id and stream_id is set). */
export type CreateSessionInput = Frozen<z.output<typeof CreateSessionFields>>;

/** The create-session answer (its schema's shape). */
export type CreatedSession = Frozen<z.output<typeof CreatedSessionSchema>>;

export interface SessionsDeps extends SessionReadsDeps {
  readonly catalog: CatalogStore;
  readonly keyCalls: KeyCalls;
  readonly tokenRetentionDays: number;
}

/** The one game or stream a create request names (the request schema makes sure there is exactly one). */
function targetOf(input: Pick<CreateSessionInput, 'game_id' | 'stream_id'>): Target {
  return input.game_id !== null ? { kind: 'game', id: input.game_id } : { kind: 'stream', id: input.stream_id! };
}

/** The session-token lifecycle: mint and revoke (API keys), beside validate ({@link SessionReads}; consuming needs no key: `session-tokens.ts`). */
export class Sessions extends SessionReads {
  constructor(protected override readonly deps: SessionsDeps) {
    super(deps);
  }

  /** The game or stream a create request is for. It needs no key: read it alongside authentication. */
  readTarget(input: Pick<CreateSessionInput, 'game_id' | 'stream_id'>): Promise<Playable | undefined> {
    const target = targetOf(input);
    return this.deps.catalog.getPlayable(target.kind, target.id);
  }

  /**
   * Mint a token for an authenticated key (REST create-session, the MCP `create_session` tool): scope
   * check, then one metered stage that counts the call, writes the token and audits it as `action`.
   * Meters the call exactly once, whatever the outcome. With the key's authentication and the
   * target's read ({@link readTarget}) before it, two round-trip stages; one when the call runs
   * ahead of its key's read (`shared/keys/known-keys.ts`), `key` then being the key as this container last read it.
   * @param playable the target as {@link readTarget} read it, alongside authentication
   * @throws OutOfScope, RateLimited
   */
  async create(
    key: ApiKeyRecord,
    input: CreateSessionInput,
    call: CallContext,
    action: string,
    playable: Playable | undefined,
  ): Promise<CreatedSession> {
    const { keyCalls, tokens, clock } = this.deps;
    const target = targetOf(input);
    const subject = {
      action,
      game_id: target.kind === 'game' ? target.id : null,
      stream_id: target.kind === 'stream' ? target.id : null,
    };
    try {
      assertInScope(key, target, playable);
    } catch (refusal) {
      return keyCalls.meter(key, call, subject, undefined, refusal as Error);
    }

    const record = this.newToken(key, input, subject, clock.now());
    const ttl = Math.ceil(Date.parse(record.expires_at) / 1000) + this.deps.tokenRetentionDays * 86_400;
    // Speculative, as only a private item may be: the token is written alongside the count and, if
    // the call is refused, deleted again before anyone could have seen it (it is returned only on success).
    await keyCalls.meter(
      key,
      call,
      { ...subject, token: record.token, minted: true },
      {
        run: () => tokens.put(record, ttl),
        undo: () => tokens.delete(record.token),
      },
    );
    return {
      token: record.token,
      game_id: record.game_id,
      stream_id: record.stream_id,
      expires_at: record.expires_at,
      external_ref: record.external_ref,
    };
  }

  /** A new active token of the key's organization, for the request's target. */
  private newToken(
    key: ApiKeyRecord,
    input: CreateSessionInput,
    target: { readonly game_id: number | null; readonly stream_id: number | null },
    now: number,
  ): TokenRecord {
    return {
      token: randomUUID(),
      org_id: key.org_id,
      key_id: key.id,
      game_id: target.game_id,
      stream_id: target.stream_id,
      external_ref: input.external_ref,
      metadata: input.metadata,
      player_ref: input.player_ref,
      status: 'active',
      created_at: isoTime(now),
      expires_at: isoTime(now + input.expires_in_minutes * 60_000),
    };
  }

  /**
   * Revoke an active token of an authenticated key's organization, audited as `action`. The token
   * is a shared item (its holder may be consuming it this very moment), so the revocation is not
   * speculative: the call is counted first and a rate-limited call never touches the token.
   * Meters the call exactly once, whatever the outcome.
   *
   * A key with an allow-list revokes only tokens of the games and streams it allows
   * (docs/decisions.md#scopes). A token's org, game and stream never change after its mint, so one
   * strong read of it, made beside the count (no stage more), decides before the token is touched;
   * a key without allow-lists needs no read.
   * @throws NotFound (unknown or another org's token), OutOfScope, TokenGone (not active), RateLimited
   */
  async revoke(key: ApiKeyRecord, token: string, call: CallContext, action: string): Promise<SessionView> {
    const { keyCalls, tokens, clock } = this.deps;
    const read = isRestricted(key) ? tokens.get(token) : undefined;
    // Awaited only if the call is counted; a refused call must not leave its failure unhandled.
    read?.catch(() => undefined);
    const revoked = await keyCalls.meter(
      key,
      call,
      { action, token },
      {
        run: async () => {
          if (read) assertRevocable(key, await read);
          return tokens.revoke(token, key.org_id, isoTime(clock.now()), uniqueRequestId(call));
        },
      },
    );
    return this.view(revoked);
  }
}

/**
 * Refuse the revocation of a token outside a key's scope, before it is touched: unknown or another
 * org's (404, as the write itself would say), or of a game or stream the key's allow-lists leave
 * out (403). The refusal names nothing of the token: not its game or stream, ref or metadata.
 * @throws NotFound, OutOfScope
 */
function assertRevocable(key: ApiKeyRecord, record: TokenRecord | undefined): void {
  if (!record || record.org_id !== key.org_id) throw new NotFound('Session not found');
  if (!allowsItem(key, record)) throw new OutOfScope(`This API key has no access to this session's game or stream`);
}
