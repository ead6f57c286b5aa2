/**
 * Give every membership of the catalog its index keys (shared/store/member-items.ts), by which
 * list-orgs (the console's org picker) finds a subject's organizations. Memberships stored before
 * list-orgs have none, and the picker does not show them until they get them. Run it once right
 * after deploying that upgrade (docs/deploy.md, "Upgrading"); safe to run again.
 *
 *   npx tsx infra/backfill-memberships.ts --catalog-table <CatalogTableName> [--region eu-west-1]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createDocumentClient } from '../shared/store/dynamo-client.js';
import { backfillMemberKeys } from '../shared/store/member-items.js';

const USAGE = 'usage: npx tsx infra/backfill-memberships.ts --catalog-table <CatalogTableName> [--region <region>]';

/** Parse `--catalog-table <name> [--region <region>]`. */
export function parseBackfillArgs(argv: readonly string[]): { catalogTable: string; region: string | undefined } {
  const { values } = parseArgs({ args: [...argv], options: { 'catalog-table': { type: 'string' }, region: { type: 'string' } } });
  if (!values['catalog-table']) throw new Error(USAGE);
  return { catalogTable: values['catalog-table'], region: values.region };
}

async function main(): Promise<void> {
  const args = parseBackfillArgs(process.argv.slice(2));
  // Credentials and region come from the usual AWS configuration (profile, environment, SSO).
  const client = createDocumentClient({ region: args.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION });
  const members = await backfillMemberKeys({ client, tableName: args.catalogTable });
  client.destroy();
  console.log(`${members} membership(s) in ${args.catalogTable}: each has its index keys`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
