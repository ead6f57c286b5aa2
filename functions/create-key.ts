export { handler } from '../shared/keys/routes/create-key.js';
