import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BudgetCount, OrgBudgetStore } from '../org-budget.js';
import { TTL_ATTRIBUTE } from '../../tables.js';
import { isConditionalFailure, oldItemOf, wireAttribute, type StoreOptions } from './client.js';

/**
 * The organizations' budgets (`OrgBudget`: usage reports, webhook hand sends) in the counters table:
 * one item per org and budget window (`<budget>#<org>#<window start>`), a conditional ADD of every
 * count at once, refused once any has reached its limit (refusals beyond are answered from memory
 * by `OrgBudget`, so the item never runs hot). The refused write's old item says which.
 */
export class DynamoBudgetStore implements OrgBudgetStore {
  constructor(private readonly options: StoreOptions) {}

  async takeBudget(pk: string, counts: readonly BudgetCount[], ttl: number): Promise<readonly string[] | undefined> {
    const names = Object.fromEntries(counts.map((count, i) => [`#c${i}`, count.field]));
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk },
          UpdateExpression: `ADD ${counts.map((_, i) => `#c${i} :one`).join(', ')} SET #ttl = :ttl`,
          ConditionExpression: counts.map((_, i) => `(attribute_not_exists(#c${i}) OR #c${i} < :l${i})`).join(' AND '),
          ExpressionAttributeNames: { ...names, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':ttl': ttl, ...Object.fromEntries(counts.map((count, i) => [`:l${i}`, count.limit])) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      const old = oldItemOf(error) ?? {};
      return counts.filter((count) => Number(wireAttribute(old, count.field) ?? 0) >= count.limit).map((count) => count.field);
    }
  }
}
