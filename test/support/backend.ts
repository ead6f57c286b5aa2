/**
 * What differs between the DynamoDB backends a stack may run on (`infra/local/dynamo.ts`), for
 * tests that count what the service touched: assertions state what real DynamoDB does, and what
 * dynalite adds where it ignores `ReturnValuesOnConditionCheckFailure`.
 */
import type { Stack } from './local-stack.js';

/**
 * Reads made only to learn why a conditional write was refused, on a backend that ignores
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD` (dynalite). DynamoDB (and DynamoDB Local) returns
 * the old item with the refusal, so they happen there only for an item that does not exist:
 * Powertools' idempotency record (`idempotency:GetItem`), a counter over its limit
 * (`counters:GetItem`), a refused revoke (`tokens:GetItem`, for a function that reads tokens for
 * nothing else). The permissions stay declared: the code stays correct on a backend without it.
 */
const FALLBACK_READS: readonly string[] = ['idempotency:GetItem', 'counters:GetItem', 'tokens:GetItem'];

/** Whether the stack's DynamoDB returns the old item of a refused conditional write. */
export function returnsOldItemOnRefusal(stack: Pick<Stack, 'dynamoBackend'>): boolean {
  return stack.dynamoBackend !== 'dynalite';
}

/** The `table:Action` pairs a run must have used: every declared one, less the fallback reads where the backend needs none. */
export function expectedUse(stack: Pick<Stack, 'dynamoBackend'>, declared: readonly string[]): string[] {
  return declared.filter((action) => !returnsOldItemOnRefusal(stack) || !FALLBACK_READS.includes(action)).sort();
}
