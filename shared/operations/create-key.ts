import { CreatedApiKey, CreateKeyBody } from '../schemas/keys.js';
import { API_PATH, defineOperation } from './operation.js';

/** create-key: an org admin creates an API key (bearer); the change is written with its audit record. */
export const createKey = defineOperation({
  operation: 'create-key',
  function: 'create-key',
  // keys UpdateItem: the new key takes a tier changed while it was being stored (shared/domain/org-tiers.ts);
  // PutItem: the key and its id item; DeleteItem: either taken back when the other fails.
  data: { catalog: ['GetItem'], counters: ['UpdateItem'], keys: ['PutItem', 'UpdateItem', 'DeleteItem'], audit: ['PutItem'] },
  parts: ['admin'],
  method: 'POST',
  path: API_PATH,
  auth: 'bearer',
  capacity: 'admin',
  summary: 'Create an API key; the raw key is returned once',
  body: CreateKeyBody,
  response: CreatedApiKey,
});
