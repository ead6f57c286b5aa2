/**
 * The API keys of an organization: one line per key (its name, a link to the key's page, the
 * prefix, the state, the limits and the last use) with its actions in one menu, and "Create a key".
 * Every change reloads the list, so it always shows what the service holds.
 */
import { data, ofOrg, type ApiKey, type OrgMembership } from '../api';
import { useApi } from '../parts/api-context';
import { keyName, when } from '../parts/format';
import { Badge } from '../parts/badge';
import { keyStatus } from '../parts/key-status';
import { useLoad } from '../parts/load';
import { formatNumber } from '../parts/locale';
import { Cell, Loading, Notice, PageHeading, TableRegion } from '../parts/page';
import { RowMenu, type MenuItem } from '../parts/row-menu';
import { may } from '../roles';
import { routeHash } from '../router';
import { useKeyActions } from './key-actions';

/**
 * The keys page of `orgId`. A member whose role (`org`, from list-orgs) may not manage keys gets no
 * "Create a key"; the list is still asked for, and the service's refusal says who may.
 */
export function KeysPage({ orgId, org }: { orgId: number; org: OrgMembership | undefined }) {
  const api = useApi();
  const [loaded, reload] = useLoad(() => data(api.GET('/api/org-api-keys', ofOrg(orgId))), [orgId]);
  const actions = useKeyActions({ orgId, changed: reload });
  return (
    <>
      <PageHeading>API keys</PageHeading>
      {may(org, 'keys') && (
        <p>
          <button type="button" class="primary" onClick={actions.create}>
            Create a key
          </button>
        </p>
      )}
      {actions.outcome && <Notice kind={actions.outcome.kind}>{actions.outcome.text}</Notice>}
      <Loading loaded={loaded}>{(keys) => <KeysTable orgId={orgId} keys={keys} items={actions.items} />}</Loading>
      {actions.dialog}
    </>
  );
}

/** The table's columns, in order (the cards of a narrow screen label each value with its column's name). */
const COLUMNS = ['Name', 'Id', 'Prefix', 'Status', 'Limits (min / day)', 'Last used', 'Actions'] as const;

interface TableProps {
  readonly orgId: number;
  readonly keys: readonly ApiKey[];
  readonly items: (key: ApiKey) => MenuItem[];
}

/**
 * The keys, one line each at desktop widths, one card each on a narrow screen (views.css): the
 * page itself never scrolls sideways. Allow-lists, scopes and expiry are on the key's page.
 */
function KeysTable({ orgId, keys, items }: TableProps) {
  if (keys.length === 0) return <p>No API keys yet.</p>;
  return (
    <TableRegion label="API keys" class="list cards" heads={COLUMNS}>
      {keys.map((key) => (
        <tr key={key.id} data-key-id={key.id}>
          <th scope="row">
            <a href={routeHash({ page: 'keys', orgId, itemId: key.id })}>{key.name}</a>
          </th>
          {/* The id the usage report, the audit log and "Rotated to" name a key by. */}
          <Cell column="Id" class="id">
            #{key.id}
          </Cell>
          <Cell column="Prefix">
            <code>{key.key_prefix}</code>
          </Cell>
          <Cell column="Status" class="status">
            <Badge {...keyStatus(key)} />
          </Cell>
          <Cell column="Limits (min / day)">
            {formatNumber(key.rate_limit_per_minute)} / {formatNumber(key.rate_limit_per_day)}
          </Cell>
          <Cell column="Last used">{when(key.last_used_at)}</Cell>
          <Cell column="Actions" class="actions">
            <RowMenu of={keyName(key)} items={items(key)} />
          </Cell>
        </tr>
      ))}
    </TableRegion>
  );
}
