import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A secret of the local run (the play cookie's HMAC key, the session-id key): generated into the
 * data folder on first run and kept there, so cookies and ids survive a restart as they survive a
 * Lambda cold start in AWS (where Secrets Manager holds them).
 */
export function loadLocalSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}
