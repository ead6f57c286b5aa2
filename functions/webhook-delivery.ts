export { handler } from '../shared/webhooks/workers/webhook-delivery.js';
