/**
 * THE tables table: every DynamoDB table the service uses, with its key schema, indexes and TTL
 * attribute. CDK (`infra/`) and the local bootstrap (`infra/local/`) both create tables from this
 * list, and the env schema derives each table's environment variable from it, so the code, the
 * local run and the deployed stack cannot drift apart.
 */
export type AttributeType = 'S' | 'N';

/** One key attribute: a name and its DynamoDB scalar type. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

/** A global secondary index. */
export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /**
   * What the index holds besides its keys: `ALL` (default; the admin views read whole items from it)
   * or `KEYS_ONLY` (an index that only finds items, which are then read from the table: updates of
   * other attributes then cost no index write), or `{ include }`: the keys and these attributes only
   * (an index read for a few fields: its items, and so its pages and writes, stay small).
   */
  readonly projection?: 'ALL' | 'KEYS_ONLY' | { readonly include: readonly string[] };
}

/** One table of the service. */
export interface TableDefinition {
  /** Logical id, also the CDK construct id. */
  readonly id: string;
  /** Environment variable that carries the physical table name to the functions. */
  readonly envVar: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly indexes: readonly IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry that DynamoDB TTL (or the local sweeper) honours. */
  readonly ttlAttribute?: string;
  /**
   * The table's DynamoDB stream, where webhook events come from (shared/webhooks/workers): what each
   * record carries. Absent: no stream. Locally, DynamoDB Local keeps the stream itself and dynalite's
   * stand-in makes the same records from the writes it applies (infra/local/).
   */
  readonly stream?: 'NEW_AND_OLD_IMAGES' | 'NEW_IMAGE';
}

/** Name of the TTL attribute on every table that expires items. */
export const TTL_ATTRIBUTE = 'ttl';

export const tables = {
  /**
   * Session tokens, one item per token, keyed by the token UUID. `by_org_created` is the session
   * report's index (`shared/usage/token-report-store.ts`): an org's tokens by creation time, spread
   * over `REPORT_SHARDS` partitions (`org_shard` = `<org_id>#<shard>`) so that no org's creates and
   * consumes crowd one index partition, projecting only what the report counts (about 150 bytes a
   * token: a 1 MB page holds thousands). DynamoDB keeps it as tokens are created, consumed, revoked:
   * a report of a month reads one query a shard instead of the day's audit records and every token.
   */
  tokens: {
    id: 'Tokens',
    envVar: 'TOKENS_TABLE',
    partitionKey: { name: 'token', type: 'S' },
    indexes: [
      {
        name: 'by_org_created',
        partitionKey: { name: 'org_shard', type: 'S' },
        sortKey: { name: 'created_at', type: 'S' },
        projection: { include: ['org_id', 'key_id', 'game_id', 'stream_id', 'status', 'expires_at'] },
      },
    ],
    ttlAttribute: TTL_ATTRIBUTE,
    // session.consumed and session.revoked are a token's status changing (old and new image).
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * API keys, keyed by the SHA-256 of the raw key so that authentication is one strongly
   * consistent GetItem. Admin operations address keys by (org_id, id) through `by_org`.
   */
  keys: {
    id: 'Keys',
    envVar: 'KEYS_TABLE',
    partitionKey: { name: 'key_hash', type: 'S' },
    indexes: [
      {
        name: 'by_org',
        partitionKey: { name: 'org_id', type: 'N' },
        sortKey: { name: 'id', type: 'N' },
      },
    ],
    // key.created, key.updated, key.rotated, key.deleted: a key item's change (old and new image).
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * The organization catalog: orgs, memberships, games and streams (single-table). Games and
   * streams are keyed by their own id so that a lookup needs nothing but the request; `by_org`
   * lists an organization's games and streams (`ORG#<id>`) and a subject's memberships
   * (`SUBJECT#<sub>`, list-orgs: shared/catalog/catalog-store.ts, `memberItem`).
   */
  catalog: {
    id: 'Catalog',
    envVar: 'CATALOG_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [
      {
        name: 'by_org',
        partitionKey: { name: 'gsi1pk', type: 'S' },
        sortKey: { name: 'gsi1sk', type: 'S' },
      },
    ],
  },
  /**
   * Small atomic counter items: rate-limit windows (`rate#<key>#<day>#<shard>`, `…#L<n>#<shard>`
   * after a limit change) and each key's counter layout of the day (`rate#<key>#<day>#layout`,
   * shared/keys/counter-store.ts), the organizations' budgets (`reports#<org>#<minute>`, webhook
   * hand sends: shared/platform/dynamo/budget-store.ts) and the id-block sequences (`seq#<sequence>`,
   * shared/platform/dynamo/sequence-store.ts).
   */
  counters: {
    id: 'Counters',
    envVar: 'COUNTERS_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    indexes: [],
    ttlAttribute: TTL_ATTRIBUTE,
    // key.rate_limited: a key's first refusal in a window puts a notice item (`notice#…`); the
    // event source mapping's filter passes only those, so the counting writes invoke nothing.
    stream: 'NEW_IMAGE',
  },
  /**
   * Audit records, newest first per organization, each org's spread over `AUDIT_SHARDS` partitions
   * (`pk` = `<org_id>#<shard>`, see `shared/audit/audit-store.ts`: a time-ordered sort key defeats
   * DynamoDB's split for heat, so one partition per org would cap an org at 1,000 audited calls a
   * second). No index on `key_id`: every audited call would pay an index write for it, while the
   * audit log's key filter is a rare read (a filtered query of the org's shards serves it).
   * Beside them, the usage rollup: counts of refused calls per org, day, kind, key and target in
   * `usage#<org_id>#<shard>` partitions (shared/audit/audit-store.ts), which the audit log
   * never reads.
   */
  audit: {
    id: 'Audit',
    envVar: 'AUDIT_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    ttlAttribute: TTL_ATTRIBUTE,
  },
  /**
   * Idempotency records of create-session (`Idempotency-Key`), written by Powertools' idempotency
   * utility: keyed by a hash of the operation, the key's hash and the header; the stored response
   * expires after 24 hours. Powertools names its epoch-seconds expiry `expiration`, so this table's
   * TTL attribute differs from the others'.
   */
  idempotency: {
    id: 'Idempotency',
    envVar: 'IDEMPOTENCY_TABLE',
    partitionKey: { name: 'id', type: 'S' },
    indexes: [],
    ttlAttribute: 'expiration',
  },
  /**
   * Webhook deliveries and what their sending needs (shared/webhooks/): each endpoint's deliveries
   * (`pk` = `DELIVERY#<webhook_id>`, `sk` = the delivery id, time-ordered, kept 30 days), the due
   * items of events that happen by time (`pk` = `DUE#<minute>#<shard>`) and the due sweep's
   * watermark (`pk` = `DUE#watermark`), and the endpoints' attempt leases (`pk` = `LEASE#<webhook_id>#<place>`).
   */
  webhooks: {
    id: 'Webhooks',
    envVar: 'WEBHOOKS_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    ttlAttribute: TTL_ATTRIBUTE,
  },
} as const satisfies Record<string, TableDefinition>;

/** The logical name of a table: `tokens`, `keys`, ... */
export type TableName = keyof typeof tables;

/** Every table definition, in a stable order. */
export const tableList: readonly TableDefinition[] = Object.values(tables);
