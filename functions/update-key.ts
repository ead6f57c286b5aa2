export { handler } from '../shared/keys/routes/update-key.js';
