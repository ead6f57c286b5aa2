/** The meta feature as other features see it (health and the interface description): import it from here, never from its files (eslint.config.js). */
export { health } from './routes/health.js';
export { openapi } from './routes/openapi.js';
