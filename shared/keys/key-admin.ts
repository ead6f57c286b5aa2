import type { AdminIdentity } from '../platform/bearer.js';
import type { AdminAccess } from '../catalog/index.js';
import { asFollowUp, isoTime, type Clock } from '../platform/time.js';
import { AdminAudit, type AdminCall } from '../audit/index.js';
import { generateRawKey, newKeyRecord } from './api-keys.js';
import { diffOf } from '../audit/index.js';
import { Conflict, InvalidInput, NotFound, statusOf } from '../platform/errors.js';
import { TierChanged } from './org-tiers.js';
import type { IdAllocator } from '../platform/ids.js';
import type { ApiKeyRecord } from './model.js';
import type { CallContext } from '../platform/call.js';
import type { AuditStore } from '../audit/index.js';
import type { KeyAdminStore, KeyChanges, KeyLocation } from './ports.js';
import { CHANGEABLE_KEY_PROPERTIES } from './schemas.js';
import {
  keyView,
  type CreatedKey,
  type CreateKeyInput,
  type KeyView,
  type RotatedKey,
  type RotateKeyInput,
  type UpdateKeyInput,
} from './key-views.js';

export interface KeyAdminDeps {
  readonly access: AdminAccess;
  readonly keys: KeyAdminStore;
  readonly audit: AuditStore;
  readonly keyIds: IdAllocator;
  readonly clock: Clock;
  readonly auditRetentionDays: number;
  /** Reports a failure that must not fail the call (an audit write after the change took effect). */
  readonly onBackgroundError?: (error: unknown, what: string) => void;
}

/**
 * Key management for org admins: list, create, update (revoke, reactivate, edit), delete. Every
 * call is authorized from the catalog alongside its first read, performs its write together with
 * its audit record, and so needs two sequential database round trips (a new key is written only
 * while its org's tier is the one it copied: shared/keys/org-tiers.ts); a rotation reads the old
 * key through its id item first (a third: the copy it makes must be the key as it is, which the
 * eventually consistent index cannot promise). Changes act
 * on the very next create-session call, which reads the key strongly consistently and caches nothing.
 * List, revocation and deletion are allowed at any tier; everything else needs Business or higher.
 */
export class KeyAdmin {
  private readonly audit: AdminAudit;

  constructor(private readonly deps: KeyAdminDeps) {
    this.audit = new AdminAudit(deps);
  }

  /** The keys of an organization. */
  async list(admin: AdminIdentity, orgId: number, call: CallContext): Promise<KeyView[]> {
    // Any tier: an org that dropped below Business must still see (and shut off) its keys.
    const { value: keys } = await this.deps.access.authorize(admin, orgId, () => this.deps.keys.listByOrg(orgId), { anyTier: true });
    await this.audit.note({ admin, orgId, call, action: 'list-keys' }, 200);
    return keys.map(keyView);
  }

  /** Create a key; the raw key is in this answer only. */
  async create(admin: AdminIdentity, input: CreateKeyInput, call: CallContext): Promise<CreatedKey> {
    const now = this.deps.clock.now();
    this.assertFuture(input.expires_at, now);
    // The id is reserved alongside the authorization reads. A refused call hands it back (no key
    // was stored with it), so a flood of refused creates costs at most one reservation write.
    let reserved: number | undefined;
    const { org, value: id } = await this.deps.access
      .authorize(admin, input.org_id, async () => (reserved = await this.deps.keyIds.nextId()))
      .catch((refusal: unknown) => {
        if (reserved !== undefined) this.deps.keyIds.release(reserved);
        throw refusal;
      });
    const raw = generateRawKey();
    const { org_id: _org, ...settings } = input;
    const record: ApiKeyRecord = {
      ...newKeyRecord(raw, id, org, { ...settings, mcp_scopes: unique(settings.mcp_scopes ?? []) }, now),
      updated_by: admin.subject,
    };
    const stored = await this.audit.audited({ admin, orgId: org.org_id, call, action: 'create-key' }, { key: record }, () =>
      underTier(record, async (r) => {
        await this.deps.keys.createInOrg(r);
        return r;
      }),
    );
    return { ...keyView(stored), key: raw };
  }

  /**
   * Change properties of a key of the organization; `is_active` false revokes, true reactivates. A
   * pure revocation is allowed at any tier; every other change needs Business or higher. A rotated
   * key can't be reactivated and its expiry can't be extended (Conflict, from the store's condition).
   */
  async update(admin: AdminIdentity, input: UpdateKeyInput, call: CallContext): Promise<KeyView> {
    this.assertFuture(input.expires_at, this.deps.clock.now());
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'update-key' };
    const changes: KeyChanges = Object.fromEntries(
      CHANGEABLE_KEY_PROPERTIES.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]),
    );
    const revocationOnly = changes.is_active === false && Object.keys(changes).length === 1;
    const { key, seen } = await this.find(adminCall, input.id, revocationOnly, true);
    if (changes.mcp_scopes) Object.assign(changes, { mcp_scopes: unique(changes.mcp_scopes) });
    const fields = Object.keys(changes) as (keyof KeyChanges & string)[];
    // Before values as the index shows the key; corrected from the write's own answer if it lagged.
    const diff = seen ? diffOf<KeyChanges>(seen, { ...seen, ...changes }, fields) : null;
    const updated = await this.audit.audited(
      adminCall,
      { key, changes: fields, diff },
      () => this.deps.keys.update(key, changes, isoTime(this.deps.clock.now()), { retiredStaysRetired: true, by: admin.subject }),
      ({ before, after }) => diffOf<KeyChanges>(before, after, fields),
    );
    return keyView(updated.after);
  }

  /**
   * Rotate a key: a new key with the old one's name, description, allow-lists, limits and MCP scopes
   * (its raw key in this answer only; no expiry, no counters of its own yet), while the old key keeps
   * working for the grace period (never longer than its own expiry) and then stops; 0 revokes it at
   * once. The key (its id item, then the key itself: both strongly consistent, so a key created a
   * moment ago is found), the membership and a new id are read together; then the new key, the old
   * key's retirement and the audit record are written together. If one write fails the other is taken back.
   * @throws NotFound (no such key in the org), Conflict (already rotated, or rotated meanwhile),
   *   TierRequired (the org dropped below Business meanwhile: nothing changed)
   */
  async rotate(admin: AdminIdentity, input: RotateKeyInput, call: CallContext): Promise<RotatedKey> {
    const adminCall: AdminCall = { admin, orgId: input.org_id, call, action: 'rotate-key' };
    let reserved: number | undefined;
    const {
      org,
      value: { key: old, id },
    } = await this.deps.access
      .authorize(admin, input.org_id, async () => {
        const [key, id] = await Promise.allSettled([this.deps.keys.findInOrg(input.org_id, input.id), this.deps.keyIds.nextId()]);
        if (id.status === 'fulfilled') reserved = id.value;
        if (key.status === 'rejected') throw key.reason;
        if (id.status === 'rejected') throw id.reason;
        return { key: key.value, id: id.value };
      })
      .catch((refusal: unknown) => {
        if (reserved !== undefined) this.deps.keyIds.release(reserved);
        throw refusal;
      });
    const refusal = rotationRefusal(old, input);
    if (!old || refusal) {
      this.deps.keyIds.release(id);
      // The record names the key asked for, found or not.
      await this.audit.note(adminCall, statusOf(refusal), { key: old ?? { id: input.id, key_prefix: null } });
      throw refusal;
    }

    const now = this.deps.clock.now();
    const raw = generateRawKey();
    // The old key's settings, but no expiry.
    const record: ApiKeyRecord = {
      ...newKeyRecord(raw, id, org, { ...old, expires_at: null }, now),
      rotated_from: old.id,
      updated_by: admin.subject,
    };
    const retire = retirement(old, id, now, input.grace_period_minutes);
    const fields = Object.keys(retire) as (keyof KeyChanges & string)[];
    const diff = diffOf<KeyChanges>(old, { ...old, ...retire }, fields);
    const { created, retired } = await this.audit.audited(adminCall, { key: old, changes: fields, diff }, () =>
      underTier(record, async (r) => ({ created: r, retired: await this.replace(old, r, retire, isoTime(now), admin.subject) })),
    );
    return { ...keyView(created), key: raw, previous: keyView(retired) };
  }

  /** Store the new key and retire the old one together; when either write fails, take the other back. */
  private async replace(old: ApiKeyRecord, record: ApiKeyRecord, retire: KeyChanges, atIso: string, by: string): Promise<ApiKeyRecord> {
    const { keys } = this.deps;
    const [created, retired] = await Promise.allSettled([
      keys.createInOrg(record),
      keys.update(old, retire, atIso, { unrotated: true, by }),
    ]);
    if (created.status === 'fulfilled' && retired.status === 'fulfilled') return retired.value.after;
    // Take-backs of writes already made: they get their attempt even at the deadline.
    const settled = await asFollowUp(() => {
      const undo: Promise<unknown>[] = [];
      if (created.status === 'fulfilled') undo.push(keys.remove(record));
      if (retired.status === 'fulfilled') {
        // Compare-and-swap: only this rotation's own retirement is taken back, never a later change.
        undo.push(keys.unretire(old, { is_active: old.is_active, expires_at: old.expires_at }, record.id, atIso));
      }
      return Promise.allSettled(undo);
    });
    for (const r of settled) if (r.status === 'rejected') this.deps.onBackgroundError?.(r.reason, 'rotation compensation');
    throw created.status === 'rejected' ? created.reason : (retired as PromiseRejectedResult).reason;
  }

  /** Remove a key of the organization permanently. */
  async remove(admin: AdminIdentity, orgId: number, id: number, call: CallContext): Promise<{ id: number; deleted: true }> {
    const adminCall: AdminCall = { admin, orgId, call, action: 'delete-key' };
    // Any tier, as revocation: a downgraded org can still remove its keys.
    const { key } = await this.find(adminCall, id, true);
    // The id item keeps who deleted the key: the actor of its `key.deleted` event.
    const deletion = { deleted_by: admin.subject, deleted_at: isoTime(this.deps.clock.now()) };
    await this.audit.audited(adminCall, { key }, () => this.deps.keys.remove(key, deletion));
    return { id, deleted: true };
  }

  /**
   * The key `id` of the call's org, once the admin may manage that org. A key of another org reads
   * as absent (404) so ids cannot be probed across orgs; the refusal is audited like any call.
   */
  private async find(adminCall: AdminCall, id: number, anyTier = false, peek = false): Promise<{ key: KeyLocation; seen?: ApiKeyRecord }> {
    const { keys } = this.deps;
    const {
      value: [key, seen],
    } = await this.deps.access.authorize(
      adminCall.admin,
      adminCall.orgId,
      // Strongly consistent (the key's id item, not the index): a key created a moment ago is found.
      // The index's copy, read alongside, only gives an update's record its before values.
      () => Promise.all([keys.locate(adminCall.orgId, id), peek ? keys.peek(adminCall.orgId, id).catch(() => undefined) : undefined]),
      { anyTier },
    );
    if (key) return { key, ...(seen && { seen }) };
    const missing = new NotFound(`API key ${id} not found in organization ${adminCall.orgId}`);
    // The record keeps the id that was asked for (what an investigation looks for).
    await this.audit.note(adminCall, statusOf(missing), { key: { id, key_prefix: null } });
    throw missing;
  }

  /** `expires_at` must lie ahead (by the domain clock, which tests move). */
  private assertFuture(expiresAt: string | null | undefined, nowMs: number): void {
    if (expiresAt && Date.parse(expiresAt) <= nowMs) throw new InvalidInput('expires_at: must be in the future');
  }
}

/**
 * Store a new key (`write`) under the tier it copied while the call was authorized. The store
 * refuses it when the org's tier changed since (shared/keys/org-tiers.ts): below Business, the
 * refusal stands (TierRequired, as the authorization would now answer); to another tier that allows
 * keys, the key is written once more with that tier. A second change meanwhile answers 409.
 */
async function underTier<T>(record: ApiKeyRecord, write: (record: ApiKeyRecord) => Promise<T>): Promise<T> {
  try {
    return await write(record);
  } catch (error) {
    if (!(error instanceof TierChanged)) throw error;
    return write({ ...record, org_tier: error.tier, org_tier_version: error.version });
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** Why a key cannot be rotated (absent, already rotated, revoked), or undefined when it can. */
function rotationRefusal(old: ApiKeyRecord | undefined, input: RotateKeyInput): Error | undefined {
  if (!old) return new NotFound(`API key ${input.id} not found in organization ${input.org_id}`);
  if (old.rotated_to != null) return new Conflict(`API key ${old.id} has already been rotated to key ${old.rotated_to}`);
  if (!old.is_active) return new Conflict(`API key ${old.id} is revoked: a revoked key cannot be rotated (create a new key instead)`);
  return undefined;
}

/**
 * What a rotation changes on the old key: it points at its successor and expires at the end of the
 * grace period (at once for 0 minutes, revoked too). The grace period never lengthens a key's life:
 * an earlier expiry of its own still holds.
 */
function retirement(old: ApiKeyRecord, successor: number, now: number, graceMinutes: number): KeyChanges {
  if (graceMinutes === 0) return { is_active: false, expires_at: isoTime(now), rotated_to: successor };
  const graceEnds = now + graceMinutes * 60_000;
  const expires = old.expires_at === null ? graceEnds : Math.min(graceEnds, Date.parse(old.expires_at));
  return { expires_at: isoTime(expires), rotated_to: successor };
}
