export { handler } from '../shared/webhooks/routes/create-webhook.js';
