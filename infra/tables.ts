/**
 * The DynamoDB tables, generated from THE tables table (`shared/tables.ts`) — the same definitions
 * the local bootstrap turns into CreateTable requests, so the deployed keys, indexes and TTL cannot
 * differ from what the code runs against locally.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
  type Attribute,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tables, type KeyAttribute, type TableDefinition, type TableName } from '../shared/tables.js';

/** The service's tables by logical name. */
export type ServiceTables = Readonly<Record<TableName, Table>>;

/** Every table of the tables table, created with the same settings. */
export class DataTables extends Construct {
  readonly tables: ServiceTables;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tables = Object.fromEntries(
      (Object.entries(tables) as [TableName, TableDefinition][]).map(([name, def]) => [name, createTable(this, def)]),
    ) as Record<TableName, Table>;
  }
}

/**
 * One table: on demand (no capacity to plan; the traffic is bursty), point-in-time recovery,
 * deletion protection and RETAIN (tokens, keys and the audit trail outlive a stack), server-side
 * encryption with the AWS-managed KMS key (encrypted at rest and auditable in CloudTrail, without
 * the cost and key policy of a customer-managed key), TTL where the definition names one, and a
 * stream of the view the definition names (where webhook events come from: infra/workers.ts).
 */
function createTable(scope: Construct, def: TableDefinition): Table {
  const table = new Table(scope, def.id, {
    partitionKey: attribute(def.partitionKey),
    sortKey: def.sortKey && attribute(def.sortKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: def.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    encryption: TableEncryption.AWS_MANAGED,
    stream: def.stream && STREAM_VIEWS[def.stream],
  });
  for (const index of def.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: attribute(index.partitionKey),
      sortKey: index.sortKey && attribute(index.sortKey),
      ...(typeof index.projection === 'object'
        ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.include] }
        : { projectionType: index.projection === 'KEYS_ONLY' ? ProjectionType.KEYS_ONLY : ProjectionType.ALL }),
    });
  }
  return table;
}

/** DynamoDB's stream view for each view the tables table may name. */
const STREAM_VIEWS: Record<NonNullable<TableDefinition['stream']>, StreamViewType> = {
  NEW_AND_OLD_IMAGES: StreamViewType.NEW_AND_OLD_IMAGES,
  NEW_IMAGE: StreamViewType.NEW_IMAGE,
};

function attribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}
