import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The service's structured JSON logger (Powertools). One line per request is written by the HTTP
 * bundle; nothing logs raw keys, whole tokens or bearer tokens (see `redact`).
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'game-session-token-service' });

/** A secret shortened to what may be logged: its first 8 characters. */
export function redact(secret: string | undefined | null): string | undefined {
  return secret ? `${secret.slice(0, 8)}…` : undefined;
}
