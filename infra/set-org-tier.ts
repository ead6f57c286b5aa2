/**
 * Change a deployed organization's tier (an operator, or the runbook of a billing change): the org
 * and then every one of its API keys, which carry a copy of the tier so that authentication stays
 * one read (`OrgTiers`, shared/keys/org-tiers.ts). Once it prints, the next call of every key of
 * the org is decided by the new tier: below Business, refused (403).
 *
 *   npx tsx infra/set-org-tier.ts --catalog-table <CatalogTableName> --keys-table <KeysTableName> \
 *     [--region eu-west-1] <org_id> <free|pro|business|enterprise>
 *
 * Reads the whole keys table once (a strongly consistent scan: see OrgTiers for why not the index).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { TIERS, type Tier } from '../shared/catalog/model.js';
import { OrgTiers, type TierChange } from '../shared/keys/org-tiers.js';
import { DynamoCatalogStore } from '../shared/catalog/catalog-store.js';
import { createDocumentClient } from '../shared/platform/dynamo/client.js';
import { DynamoKeyStore } from '../shared/keys/key-store.js';

/** What the command line asks for. */
export interface TierArgs {
  readonly catalogTable: string;
  readonly keysTable: string;
  readonly region: string | undefined;
  readonly orgId: number;
  readonly tier: Tier;
}

const USAGE =
  'usage: npx tsx infra/set-org-tier.ts --catalog-table <CatalogTableName> --keys-table <KeysTableName> [--region <region>] <org_id> <tier>';

/** Parse `--catalog-table <name> --keys-table <name> [--region <region>] <org_id> <tier>`. */
export function parseTierArgs(argv: readonly string[]): TierArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { 'catalog-table': { type: 'string' }, 'keys-table': { type: 'string' }, region: { type: 'string' } },
    allowPositionals: true,
  });
  const [org, tier] = positionals;
  const orgId = Number(org);
  if (!values['catalog-table'] || !values['keys-table'] || positionals.length !== 2 || !Number.isSafeInteger(orgId) || orgId <= 0) {
    throw new Error(USAGE);
  }
  if (!(TIERS as readonly string[]).includes(tier!)) throw new Error(`tier must be one of ${TIERS.join(', ')}`);
  return { catalogTable: values['catalog-table'], keysTable: values['keys-table'], region: values.region, orgId, tier: tier as Tier };
}

async function main(): Promise<void> {
  const args = parseTierArgs(process.argv.slice(2));
  // Credentials and region come from the usual AWS configuration (profile, environment, SSO).
  const client = createDocumentClient({ region: args.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION });
  const tiers = new OrgTiers({
    orgs: new DynamoCatalogStore({ client, tableName: args.catalogTable }),
    keys: new DynamoKeyStore({ client, tableName: args.keysTable }),
  });
  const change: TierChange = await tiers.change(args.orgId, args.tier);
  client.destroy();
  console.log(`organization ${change.org_id}: tier ${change.tier} (version ${change.version}), now carried by ${change.keys} key(s)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
