/**
 * Give every API key its id item (shared/keys/key-id-items.ts): the strongly consistent record by
 * which key management finds a key by id. Keys stored before the upgrade that introduced id items
 * have none; until they get one, PATCH, DELETE and rotate answer 404 for them. Run it once before
 * deploying that upgrade and once right after (docs/deploy.md, "Upgrading"); safe to run again.
 *
 *   npx tsx infra/backfill-key-ids.ts --keys-table <KeysTableName> [--region eu-west-1]
 */
import { backfillIdItems } from '../shared/keys/key-id-items.js';
import { runBackfillScript, tableArgs } from './backfill-cli.js';

const USAGE = 'usage: npx tsx infra/backfill-key-ids.ts --keys-table <KeysTableName> [--region <region>]';

/** Parse `--keys-table <name> [--region <region>]`. */
export function parseBackfillArgs(argv: readonly string[]): { keysTable: string; region: string | undefined } {
  const { table, region } = tableArgs(argv, 'keys-table', USAGE);
  return { keysTable: table, region };
}

runBackfillScript(
  import.meta.url,
  () => tableArgs(process.argv.slice(2), 'keys-table', USAGE),
  (client, tableName) => backfillIdItems({ client, tableName }),
  (count, table) => `${count} key(s) in ${table}: each has its id item`,
);
