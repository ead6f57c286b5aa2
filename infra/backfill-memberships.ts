/**
 * Give every membership of the catalog its index keys (shared/catalog/catalog-store.ts), by which
 * list-orgs (the console's org picker) finds a subject's organizations. Memberships stored before
 * list-orgs have none, and the picker does not show them until they get them. Run it once right
 * after deploying that upgrade (docs/deploy.md, "Upgrading"); safe to run again.
 *
 *   npx tsx infra/backfill-memberships.ts --catalog-table <CatalogTableName> [--region eu-west-1]
 */
import { backfillMemberKeys } from '../shared/catalog/catalog-store.js';
import { runBackfillScript, tableArgs } from './backfill-cli.js';

const USAGE = 'usage: npx tsx infra/backfill-memberships.ts --catalog-table <CatalogTableName> [--region <region>]';

/** Parse `--catalog-table <name> [--region <region>]`. */
export function parseBackfillArgs(argv: readonly string[]): { catalogTable: string; region: string | undefined } {
  const { table, region } = tableArgs(argv, 'catalog-table', USAGE);
  return { catalogTable: table, region };
}

runBackfillScript(
  import.meta.url,
  () => tableArgs(process.argv.slice(2), 'catalog-table', USAGE),
  (client, tableName) => backfillMemberKeys({ client, tableName }),
  (count, table) => `${count} membership(s) in ${table}: each has its index keys`,
);
