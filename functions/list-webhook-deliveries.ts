export { handler } from '../shared/webhooks/routes/list-webhook-deliveries.js';
