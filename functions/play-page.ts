import { playServices } from '../shared/play/services.js';
import { page } from '../shared/platform/http/page-pipeline.js';
import { servePlay } from '../shared/play/play-requests.js';
import { playPageOperations } from '../shared/play/routes.js';

/**
 * GET /play/game/{id}, /play/stream/{id}, /game/{id}, /embed/{id}, /stream/{org_slug}/{id}
 * (`?session_token=` when the game or stream requires one; HTML), and POST /play/session (the
 * page's script trades the session it has just consumed for the play cookie).
 */
export const handler = page(playPageOperations, servePlay, playServices);
