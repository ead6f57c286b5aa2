/**
 * Least-privilege data access, derived from THE routes table: a function may perform exactly the
 * DynamoDB actions its routes declare (`data`), on exactly those tables, and reaches a table's
 * indexes only where it declares Query.
 */
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { DynamoAction, RouteDefinition } from '../shared/platform/route.js';
import { tables, type TableName } from '../shared/tables.js';

/** DynamoDB actions per logical table, sorted and without duplicates. */
export type TableAccess = Readonly<Partial<Record<TableName, readonly DynamoAction[]>>>;

/** The distinct functions of a routes table, in table order. */
export function functionNames(table: readonly RouteDefinition[]): string[] {
  return [...new Set(table.map((route) => route.function))];
}

/** The union of the `data` of every route a function serves. */
export function functionAccess(table: readonly RouteDefinition[], fn: string): TableAccess {
  const union = new Map<TableName, Set<DynamoAction>>();
  for (const route of table.filter((r) => r.function === fn)) {
    for (const [name, actions] of Object.entries(route.data) as [TableName, readonly DynamoAction[]][]) {
      const set = union.get(name) ?? new Set<DynamoAction>();
      for (const action of actions) set.add(action);
      union.set(name, set);
    }
  }
  return Object.fromEntries([...union].filter(([, set]) => set.size > 0).map(([name, set]) => [name, [...set].sort()]));
}

/** The union over all functions: which actions each table sees at all (alarms watch exactly these). */
export function serviceAccess(table: readonly RouteDefinition[]): TableAccess {
  return functionAccess(
    table.map((route) => ({ ...route, function: '*' })),
    '*',
  );
}

/** ARNs a table statement needs: the table, plus its indexes when the actions include Query. */
function tableResources(name: TableName, tableArn: string, actions: readonly DynamoAction[]): string[] {
  const indexes = actions.includes('Query') ? tables[name].indexes.map((index) => `${tableArn}/index/${index.name}`) : [];
  return [tableArn, ...indexes];
}

/** One IAM statement per table the function touches. */
export function dataStatements(access: TableAccess, tableArns: Readonly<Record<TableName, string>>): PolicyStatement[] {
  return (Object.entries(access) as [TableName, readonly DynamoAction[]][]).map(
    ([name, actions]) =>
      new PolicyStatement({
        sid: `Data${tables[name].id}`,
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: tableResources(name, tableArns[name], actions),
      }),
  );
}
