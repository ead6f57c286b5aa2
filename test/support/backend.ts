/**
 * What the service declares but a test run does not use, for tests that count what the service
 * touched: every backend the tests run on returns the old item of a refused conditional write that
 * asks for it (`ReturnValuesOnConditionCheckFailure: ALL_OLD`: DynamoDB Local as DynamoDB does,
 * dynalite through `infra/local/dynalite-refusals.ts`), as DynamoDB does.
 */

/**
 * Reads made only to learn why a conditional write was refused, on a backend that would not return
 * the old item with the refusal: Powertools' idempotency record (`idempotency:GetItem`), a counter
 * over its limit (`counters:GetItem`), a refused revoke (`tokens:GetItem`). They happen on no backend.
 */
const FALLBACK_READS: readonly string[] = ['idempotency:GetItem', 'counters:GetItem', 'tokens:GetItem'];

/** The `table:Action` pairs a run must have used: every declared one, less the fallback reads. */
export function expectedUse(declared: readonly string[]): string[] {
  return declared.filter((action) => !FALLBACK_READS.includes(action)).sort();
}
