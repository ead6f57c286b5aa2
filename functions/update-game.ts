export { handler } from '../shared/catalog/routes/update-game.js';
