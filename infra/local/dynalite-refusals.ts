/**
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` for dynalite, which drops the parameter: DynamoDB
 * (and DynamoDB Local) answer a refused conditional PutItem, UpdateItem or DeleteItem that asks for it
 * with the item as it was (`Item`, in the wire format, beside the error's message), and nothing when
 * there was no item. The service learns from that item why it was refused and reads nothing more
 * (`shared/keys/counter-store.ts`, `key-store.ts`, `shared/sessions/token-store.ts`, and Powertools'
 * idempotency claims), so the local run's and the tests' dynalite must answer so too.
 *
 * dynalite checks a write's condition inside its lock on the item (`db.checkConditional(data,
 * item)`, called through its module's exports by each of the three actions): the refusal it builds
 * there gets the item the condition was checked against, exactly as DynamoDB's does, with no second
 * read. Its request validation keeps only the parameters it knows, so the three actions learn this one.
 * The transactions stand-in (`dynalite-transactions.ts`) applies its items through these same writes.
 */
import db from 'dynalite/db/index.js';
import deleteItem from 'dynalite/validations/deleteItem.js';
import putItem from 'dynalite/validations/putItem.js';
import updateItem from 'dynalite/validations/updateItem.js';

let installed = false;

/** Make this process's dynalite return the old item of a refused write that asks for it (once; later calls do nothing). */
export function returnOldItemOnRefusal(): void {
  if (installed) return;
  installed = true;
  for (const action of [putItem, updateItem, deleteItem]) {
    action.types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
  const checkConditional = db.checkConditional;
  db.checkConditional = (data, existing) => {
    const refusal = checkConditional(data, existing);
    if (refusal && existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') refusal.body.Item = existing;
    return refusal;
  };
}
