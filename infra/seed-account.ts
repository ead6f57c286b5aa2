/**
 * Seed a deployed account's catalog: the first organization, its first admin membership (the
 * identity provider's `sub`), and optionally its games and streams. After that, the admin creates API
 * keys through the API. Writes go through the service's own catalog store, so the records are
 * exactly what the functions read.
 *
 *   npx tsx infra/seed-account.ts --table <CatalogTableName output> [--region eu-west-1] seed.json
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROLES, TIERS, type Org, type Playable, type Role } from '../shared/catalog/model.js';
import { DynamoCatalogStore } from '../shared/catalog/catalog-store.js';
import { createDocumentClient } from '../shared/platform/dynamo/client.js';

const playable = z.object({
  id: z.number().int().positive(),
  name: z.string().min(1).max(200),
  /** What the play page shows. */
  content_url: z.string().url(),
  /** The "Require API Session Token" setting. */
  require_session_token: z.boolean().default(true),
});

/** The seed file. */
export const AccountSeedSchema = z.object({
  org: z.object({
    org_id: z.number().int().positive(),
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
    name: z.string().min(1).max(200),
    /** Business or higher may use the API. */
    tier: z.enum(TIERS).default('business'),
    /** Origins that may frame the org's embed pages. */
    allowed_origins: z.array(z.string().min(1)).default([]),
  }),
  /** At least one: the subject (`sub` claim) of the first admin, with role owner or admin. */
  members: z
    .array(z.object({ subject: z.string().min(1), role: z.enum(ROLES).default('owner') }))
    .min(1)
    .refine((members) => members.some((m) => m.role === 'owner' || m.role === 'admin'), 'at least one member must be owner or admin'),
  games: z.array(playable).default([]),
  streams: z.array(playable).default([]),
});

export type AccountSeed = z.output<typeof AccountSeedSchema>;

/** The catalog writes the seed needs. */
export type SeedCatalog = Pick<DynamoCatalogStore, 'getOrg' | 'putOrg' | 'putMember' | 'putPlayable'>;

/** What was written. */
export interface SeedResult {
  readonly org: Org;
  readonly members: readonly { subject: string; role: Role }[];
  readonly playables: readonly Playable[];
}

/**
 * Write the seed. Safe to run again with the same file (every write is a put of the same record);
 * refuses to change the tier of an existing organization, because its API keys carry a copy of it.
 */
export async function seedAccount(catalog: SeedCatalog, seed: AccountSeed): Promise<SeedResult> {
  const { org } = seed;
  const existing = await catalog.getOrg(org.org_id);
  if (existing && existing.tier !== org.tier) {
    throw new Error(
      `organization ${org.org_id} exists with tier ${existing.tier}; change tiers with infra/set-org-tier.ts (it updates the org's keys too)`,
    );
  }
  const playables: Playable[] = [
    ...seed.games.map((g) => ({ ...g, kind: 'game' as const, org_id: org.org_id, org_slug: org.slug })),
    ...seed.streams.map((s) => ({ ...s, kind: 'stream' as const, org_id: org.org_id, org_slug: org.slug })),
  ];
  // The tier version stays: the org's keys carry it, and only a later one may replace their tier copy.
  await catalog.putOrg(existing?.tier_version === undefined ? org : { ...org, tier_version: existing.tier_version });
  await Promise.all([
    ...seed.members.map((m) => catalog.putMember(org.org_id, m.subject, m.role)),
    ...playables.map((p) => catalog.putPlayable(p)),
  ]);
  return { org, members: seed.members, playables };
}

/** The command line: `--table <name> [--region <region>] <seed.json>`. */
export function parseSeedArgs(argv: readonly string[]): { table: string; region: string | undefined; file: string } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { table: { type: 'string' }, region: { type: 'string' } },
    allowPositionals: true,
  });
  if (!values.table || positionals.length !== 1) {
    throw new Error('usage: npx tsx infra/seed-account.ts --table <CatalogTableName> [--region <region>] <seed.json>');
  }
  return { table: values.table, region: values.region, file: positionals[0]! };
}

async function main(): Promise<void> {
  const args = parseSeedArgs(process.argv.slice(2));
  const seed = AccountSeedSchema.parse(JSON.parse(readFileSync(args.file, 'utf8')));
  // Credentials and region come from the usual AWS configuration (profile, environment, SSO).
  const client = createDocumentClient({ region: args.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION });
  const result = await seedAccount(new DynamoCatalogStore({ client, tableName: args.table }), seed);
  client.destroy();
  console.log(`organization ${result.org.org_id} (${result.org.slug}, ${result.org.tier}) written to ${args.table}`);
  for (const m of result.members) console.log(`  member ${m.subject}: ${m.role}`);
  for (const p of result.playables)
    console.log(`  ${p.kind} ${p.id}: ${p.name} (token ${p.require_session_token ? 'required' : 'not required'})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
