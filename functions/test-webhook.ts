export { handler } from '../shared/webhooks/routes/test-webhook.js';
