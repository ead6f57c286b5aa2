export { handler } from '../shared/webhooks/workers/webhook-events.js';
