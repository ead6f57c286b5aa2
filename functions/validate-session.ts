export { handler } from '../shared/sessions/routes/validate-session.js';
