export { handler } from '../shared/keys/routes/rotate-key.js';
