/**
 * The API keys of an organization: the table, and from it create, edit, revoke / reactivate, rotate
 * and delete. Every change reloads the list, so the table always shows what the service holds.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { data, ofOrg, type ApiKey, type CreatedKey, type OrgMembership } from '../api';
import { useApi } from '../parts/api-context';
import { allowList, keyName, when } from '../parts/format';
import { failure, useLoad } from '../parts/load';
import { formatNumber } from '../parts/locale';
import { Loading, Notice, PageHeading, TableRegion } from '../parts/page';
import { may } from '../roles';
import { DeleteKeyDialog, RotateKeyDialog } from './key-actions';
import { KeyForm } from './key-form';
import { KeySecret } from './key-secret';

/** What the page has open over the table. */
type Open =
  | { readonly kind: 'create' }
  | { readonly kind: 'edit' | 'rotate' | 'delete'; readonly key: ApiKey }
  | { readonly kind: 'secret'; readonly key: CreatedKey };

/**
 * A key's state in a word (revoked, expired, rotated in its grace period, active), and the key that
 * replaced it once it was rotated: a rotation stays visible after the old key is revoked or expires.
 */
function keyStatus(key: ApiKey, now = Date.now()): string {
  const successor = key.rotated_to === null ? undefined : `#${key.rotated_to}`;
  const ended = !key.is_active ? 'Revoked' : key.expires_at && Date.parse(key.expires_at) <= now ? 'Expired' : undefined;
  if (ended) return successor ? `${ended}, rotated to ${successor}` : ended;
  return successor ? `Rotated to ${successor}` : 'Active';
}

/**
 * The keys page of `orgId`. A member whose role (`org`, from list-orgs) may not manage keys gets no
 * "Create a key"; the list is still asked for, and the service's refusal says who may.
 */
export function KeysPage({ orgId, org }: { orgId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys', ofOrg(orgId))), [orgId]);
  const [open, setOpen] = useState<Open>();
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const done = (text: string) => {
    setMessage({ kind: 'success', text });
    setOpen(undefined);
    reload();
  };
  const setActive = async (key: ApiKey, active: boolean) => {
    try {
      await api.PATCH('/api/org-api-keys', { body: { id: key.id, org_id: orgId, is_active: active } });
      done(`${keyName(key)} ${active ? 'reactivated' : 'revoked'}.`);
    } catch (error) {
      setMessage({ kind: 'error', text: failure(error).message });
    }
  };
  return (
    <>
      <PageHeading>API keys</PageHeading>
      {may(org, 'keys') && (
        <p>
          <button type="button" class="primary" onClick={() => setOpen({ kind: 'create' })}>
            Create a key
          </button>
        </p>
      )}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Loading loaded={loaded}>
        {(keys) => <KeysTable keys={keys} onOpen={setOpen} onSetActive={(key, active) => void setActive(key, active)} />}
      </Loading>
      {open && <KeyDialogs orgId={orgId} open={open} setOpen={setOpen} done={done} reload={reload} />}
    </>
  );
}

interface DialogsProps {
  readonly orgId: number;
  readonly open: Open;
  readonly setOpen: (open: Open | undefined) => void;
  /** A change is done: say so, close, reload. */
  readonly done: (message: string) => void;
  readonly reload: () => void;
}

/** What is open over the table: a form, a confirmation, or the raw key of a new key. */
function KeyDialogs({ orgId, open, setOpen, done, reload }: DialogsProps) {
  const close = () => setOpen(undefined);
  // A new raw key replaces the form that made it, and the list shows the new key behind it.
  const showSecret = (key: CreatedKey) => {
    setOpen({ kind: 'secret', key });
    reload();
  };
  switch (open.kind) {
    case 'create':
      return <KeyForm orgId={orgId} onClose={close} onSaved={(key) => showSecret(key as CreatedKey)} />;
    case 'edit':
      return <KeyForm orgId={orgId} existing={open.key} onClose={close} onSaved={(key) => done(`${key.name} saved.`)} />;
    case 'rotate':
      return <RotateKeyDialog orgId={orgId} apiKey={open.key} onClose={close} onRotated={showSecret} />;
    case 'delete':
      return <DeleteKeyDialog orgId={orgId} apiKey={open.key} onClose={close} onDeleted={done} />;
    case 'secret':
      return <KeySecret created={open.key} onClose={close} />;
  }
}

interface TableProps {
  readonly keys: readonly ApiKey[];
  readonly onOpen: (open: Open) => void;
  readonly onSetActive: (key: ApiKey, active: boolean) => void;
}

/** The table's columns, in order (the cards of a narrow screen label each value with its column's name). */
const COLUMNS = [
  'Name',
  'Id',
  'Prefix',
  'Status',
  'Games',
  'Streams',
  'Limits (min / day)',
  'MCP scopes',
  'Expires',
  'Last used',
  'Actions',
] as const;
type Column = (typeof COLUMNS)[number];

/** A cell, labelled with its column (shown on the cards). */
function Cell({ column, class: className, children }: { column: Column; class?: string; children: ComponentChildren }) {
  return (
    <td class={className} data-label={column}>
      {children}
    </td>
  );
}

/**
 * The keys as a table that fits the page at desktop widths (its cells wrap, the actions too), and
 * as one card per key on a narrow screen (views.css): the page itself never scrolls sideways.
 */
function KeysTable({ keys, onOpen, onSetActive }: TableProps) {
  if (keys.length === 0) return <p>No API keys yet.</p>;
  return (
    <TableRegion label="API keys" class="keys cards" heads={COLUMNS}>
      {keys.map((key) => (
        <tr key={key.id} data-key-id={key.id}>
          <th scope="row">
            {key.name}
            {key.description && <span class="sub">{key.description}</span>}
          </th>
          {/* The id the usage report, the audit log and "Rotated to" name a key by. */}
          <Cell column="Id" class="id">
            #{key.id}
          </Cell>
          <Cell column="Prefix">
            <code>{key.key_prefix}</code>
          </Cell>
          <Cell column="Status" class="status">
            {keyStatus(key)}
          </Cell>
          <Cell column="Games">{allowList(key.allowed_game_ids)}</Cell>
          <Cell column="Streams">{allowList(key.allowed_stream_ids)}</Cell>
          <Cell column="Limits (min / day)">
            {formatNumber(key.rate_limit_per_minute)} / {formatNumber(key.rate_limit_per_day)}
          </Cell>
          <Cell column="MCP scopes">{key.mcp_scopes.length ? key.mcp_scopes.join(', ') : 'none'}</Cell>
          <Cell column="Expires">{when(key.expires_at)}</Cell>
          <Cell column="Last used">{when(key.last_used_at)}</Cell>
          <Cell column="Actions" class="actions">
            <KeyActions apiKey={key} onOpen={onOpen} onSetActive={onSetActive} />
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}

/** A row's buttons; each names its key for screen readers ("Revoke Checkout server"). */
function KeyActions({ apiKey: key, onOpen, onSetActive }: { apiKey: ApiKey } & Omit<TableProps, 'keys'>) {
  const label = (verb: string) => `${verb} ${keyName(key)}`;
  return (
    <div class="key-actions">
      <button type="button" aria-label={label('Edit')} onClick={() => onOpen({ kind: 'edit', key })}>
        Edit
      </button>
      {/* Only what the service allows (docs/decisions.md#key-rotation): a rotated key can't be
          reactivated, a revoked one can't be rotated, and a key is rotated once. */}
      {key.is_active && (
        <button type="button" aria-label={label('Revoke')} onClick={() => onSetActive(key, false)}>
          Revoke
        </button>
      )}
      {!key.is_active && key.rotated_to === null && (
        <button type="button" aria-label={label('Reactivate')} onClick={() => onSetActive(key, true)}>
          Reactivate
        </button>
      )}
      {key.is_active && key.rotated_to === null && (
        <button type="button" aria-label={label('Rotate')} onClick={() => onOpen({ kind: 'rotate', key })}>
          Rotate
        </button>
      )}
      <button type="button" class="danger" aria-label={label('Delete')} onClick={() => onOpen({ kind: 'delete', key })}>
        Delete
      </button>
    </div>
  );
}
