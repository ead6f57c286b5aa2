/** The console's settings, read at start from `config.json` beside the page (written by the front or at deploy). */
import type { ConsoleConfig } from './config-shape.js';

export type { ConsoleConfig };

/** Fetch and check the settings; a missing field is an error that names it. */
export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  const raw = (await response.json()) as Partial<Record<keyof ConsoleConfig, unknown>>;
  for (const field of ['issuer', 'client_id', 'api_base'] as const) {
    if (typeof raw[field] !== 'string' || raw[field] === '') {
      throw new Error(`The console is not configured: config.json has no ${field} (deploy with the console context, docs/deploy.md)`);
    }
  }
  return {
    issuer: raw.issuer as string,
    client_id: raw.client_id as string,
    audience: typeof raw.audience === 'string' ? raw.audience : '',
    api_base: raw.api_base as string,
  };
}

/** The page's own address without query or hash: the redirect URI registered at the provider. */
export function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}
