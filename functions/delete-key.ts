export { handler } from '../shared/keys/routes/delete-key.js';
