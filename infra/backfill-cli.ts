/**
 * The command line of the backfill scripts (`backfill-key-ids.ts`, `backfill-memberships.ts`): one
 * table named by a flag, an optional region, the usual AWS credentials, a line saying what was done.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../shared/platform/dynamo/client.js';

/** `--<flag> <name> [--region <region>]`, or the usage line as the error. */
export function tableArgs(argv: readonly string[], flag: string, usage: string): { table: string; region: string | undefined } {
  const { values } = parseArgs({ args: [...argv], options: { [flag]: { type: 'string' }, region: { type: 'string' } } });
  const table = values[flag];
  if (typeof table !== 'string' || !table) throw new Error(usage);
  return { table, region: values.region as string | undefined };
}

/**
 * Run `backfill` on the table the arguments name when `moduleUrl` is the script node was started
 * with, printing `done(count, table)`; a failure prints its message and exits 1.
 */
export function runBackfillScript(
  moduleUrl: string,
  args: () => { table: string; region: string | undefined },
  backfill: (client: DynamoDBDocumentClient, table: string) => Promise<number>,
  done: (count: number, table: string) => string,
): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const main = async () => {
    const { table, region } = args();
    // Credentials and region come from the usual AWS configuration (profile, environment, SSO).
    const client = createDocumentClient({ region: region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION });
    const count = await backfill(client, table);
    client.destroy();
    console.log(done(count, table));
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
