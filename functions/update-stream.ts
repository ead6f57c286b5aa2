export { handler } from '../shared/catalog/routes/update-stream.js';
