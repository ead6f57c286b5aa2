export { handler } from '../shared/meta/routes/openapi.js';
