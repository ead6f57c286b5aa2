export { handler } from '../shared/usage/routes/audit-log.js';
