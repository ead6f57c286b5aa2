export { handler } from '../shared/catalog/routes/list-orgs.js';
