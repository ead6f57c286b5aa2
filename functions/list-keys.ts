export { handler } from '../shared/keys/routes/list-keys.js';
