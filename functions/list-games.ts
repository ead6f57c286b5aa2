export { handler } from '../shared/catalog/routes/list-games.js';
