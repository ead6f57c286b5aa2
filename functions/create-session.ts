export { handler } from '../shared/sessions/routes/create-session.js';
