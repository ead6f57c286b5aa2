import { Logger } from '@aws-lambda-powertools/logger';
import { loggingEnv } from '../env.js';

/** Name and level from the parsed environment (Lambda's own log level, when set, still comes first). */
const settings = loggingEnv();

/**
 * The service's structured JSON logger (Powertools). One line per request is written by the HTTP
 * bundle; nothing logs raw keys, whole tokens or bearer tokens (a key shows as its first 8 characters).
 */
export const logger = new Logger({ serviceName: settings.POWERTOOLS_SERVICE_NAME, logLevel: settings.POWERTOOLS_LOG_LEVEL });
