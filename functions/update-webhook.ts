export { handler } from '../shared/webhooks/routes/update-webhook.js';
