export { handler } from '../shared/webhooks/routes/recover-webhook.js';
