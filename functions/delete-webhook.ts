export { handler } from '../shared/webhooks/routes/delete-webhook.js';
