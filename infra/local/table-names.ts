/**
 * Physical table names read back as the service's tables: a shared DynamoDB prefixes each test
 * stack's tables (`s1a2b3c4-tokens`). The local DynamoDB's start-up and its transactions stand-in
 * both read them, so they sit below both.
 */
import { tables, type TableDefinition, type TableName } from '../../shared/tables.js';

/** The logical name of a physical table name (`s1a2b3c4-tokens` → `tokens`), for test records. */
export function logicalTableName(physical: string): string {
  return Object.keys(tables).find((name) => physical === name || physical.endsWith(`-${name}`)) ?? physical;
}

/** A table's definition by its physical name (prefixed on a shared DynamoDB: `s1a2b3c4-tokens`). */
export function tableDefinitionOf(physical: string): TableDefinition | undefined {
  return tables[logicalTableName(physical) as TableName];
}
