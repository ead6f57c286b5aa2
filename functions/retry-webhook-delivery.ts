export { handler } from '../shared/webhooks/routes/retry-webhook-delivery.js';
