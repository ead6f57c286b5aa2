/**
 * Give every API key its id item (shared/store/key-id-items.ts): the strongly consistent record by
 * which key management finds a key by id. Keys stored before the upgrade that introduced id items
 * have none; until they get one, PATCH, DELETE and rotate answer 404 for them. Run it once before
 * deploying that upgrade and once right after (docs/deploy.md, "Upgrading"); safe to run again.
 *
 *   npx tsx infra/backfill-key-ids.ts --keys-table <KeysTableName> [--region eu-west-1]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createDocumentClient } from '../shared/store/dynamo-client.js';
import { backfillIdItems } from '../shared/store/key-id-items.js';

const USAGE = 'usage: npx tsx infra/backfill-key-ids.ts --keys-table <KeysTableName> [--region <region>]';

/** Parse `--keys-table <name> [--region <region>]`. */
export function parseBackfillArgs(argv: readonly string[]): { keysTable: string; region: string | undefined } {
  const { values } = parseArgs({ args: [...argv], options: { 'keys-table': { type: 'string' }, region: { type: 'string' } } });
  if (!values['keys-table']) throw new Error(USAGE);
  return { keysTable: values['keys-table'], region: values.region };
}

async function main(): Promise<void> {
  const args = parseBackfillArgs(process.argv.slice(2));
  // Credentials and region come from the usual AWS configuration (profile, environment, SSO).
  const client = createDocumentClient({ region: args.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION });
  const keys = await backfillIdItems({ client, tableName: args.keysTable });
  client.destroy();
  console.log(`${keys} key(s) in ${args.keysTable}: each has its id item`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
