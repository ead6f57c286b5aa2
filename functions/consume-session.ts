export { handler } from '../shared/sessions/routes/consume-session.js';
