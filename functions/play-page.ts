export { handler } from '../shared/play/play-requests.js';
