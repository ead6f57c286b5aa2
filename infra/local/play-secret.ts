import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The play cookie's HMAC secret for the local run: generated into the data folder on first run and
 * kept there, so play cookies survive a restart as they survive a Lambda cold start in AWS.
 */
export function loadPlaySecret(dataDir: string): string {
  const file = join(dataDir, 'play-cookie-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}
