export { handler } from '../shared/sessions/routes/revoke-session.js';
