export { handler } from '../shared/webhooks/routes/rotate-webhook-secret.js';
