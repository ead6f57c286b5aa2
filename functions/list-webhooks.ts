export { handler } from '../shared/webhooks/routes/list-webhooks.js';
