export { handler } from '../shared/webhooks/workers/webhook-due.js';
