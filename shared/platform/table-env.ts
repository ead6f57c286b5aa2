/**
 * From THE tables table to an environment: each table's variable (`TOKENS_TABLE`, …) carrying its
 * physical name. The stack, the local run, the bundled tests and the benchmark all hand the code
 * its tables this way; the code reads them back through `shared/platform/env.ts`. Not imported by the
 * functions' own code, so it adds nothing to a bundle.
 */
import { tables, type TableDefinition, type TableName } from '../tables.js';

/** An environment variable that carries a physical table name. */
export type TableEnvVar = (typeof tables)[TableName]['envVar'];

/** The table-name variables, each set to the physical name `physicalName` gives its table. */
export function tableEnv(physicalName: (name: TableName, table: TableDefinition) => string): Record<TableEnvVar, string> {
  const names = Object.keys(tables) as TableName[];
  return Object.fromEntries(names.map((name) => [tables[name].envVar, physicalName(name, tables[name])])) as Record<TableEnvVar, string>;
}
