export { handler } from '../shared/usage/routes/usage.js';
