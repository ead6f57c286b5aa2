export { handler } from '../shared/meta/routes/health.js';
