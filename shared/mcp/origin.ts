import { Forbidden } from '../platform/errors.js';

/**
 * The MCP Streamable HTTP specification asks servers to validate `Origin` (DNS rebinding: a page of
 * another site, in the user's browser, reaching an MCP server through a name it controls). A request
 * with an `Origin` header, i.e. from a browser, passes only when that origin is in `allowList` (a
 * comma-separated list, `MCP_ALLOWED_ORIGINS`; empty by default, so no browser origin passes).
 * A request without `Origin` (a server-side MCP client) passes. Compared case-insensitively, exactly
 * (scheme, host and port).
 * @throws Forbidden
 */
export function assertAllowedOrigin(origin: string | undefined, allowList: string): void {
  if (origin === undefined) return;
  const allowed = allowList
    .split(',')
    .map((o) => o.trim().toLowerCase())
    .filter(Boolean);
  if (!allowed.includes(origin.trim().toLowerCase())) {
    throw new Forbidden('Browser origin not allowed to call the MCP endpoint (MCP_ALLOWED_ORIGINS)');
  }
}
