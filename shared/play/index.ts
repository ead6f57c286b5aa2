/** The play feature as other features see it (the play pages): import it from here, never from its files (eslint.config.js). */
export { playPageOperations } from './routes.js';
