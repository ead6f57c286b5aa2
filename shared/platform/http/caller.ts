/**
 * Who and which request a call is, from what the request carries: the request id the caller chose
 * (kept when it is a sane one) and the viewer's address the edge reports (trusted only on a
 * request the origin check proved came through CloudFront).
 */
import { isIP } from 'node:net';

/** The header a caller may name its request with, and that every answer carries. */
export const REQUEST_ID_HEADER = 'x-request-id';
/**
 * A caller's request id is kept when it is 1 to 128 of these characters: enough for a UUID, a ULID
 * or a trace id, and nothing that could forge a log field or blow up a line.
 */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of a call: the caller's `X-Request-Id` when it is valid, otherwise the one API
 * Gateway (or the local front) gave the request.
 */
export function requestIdOf(headers: Readonly<Record<string, string | undefined>>, generated: string): string {
  const chosen = headers[REQUEST_ID_HEADER];
  return chosen !== undefined && REQUEST_ID_PATTERN.test(chosen) ? chosen : generated;
}

/**
 * The header the edge's viewer-request function sets to the viewer's address (`event.viewer.ip`,
 * `infra/edge-rewrite.ts`), overwriting whatever a viewer sent. (CloudFront's own
 * `CloudFront-Viewer-Address` would need an origin request policy listing every header the service
 * reads, since a policy that forwards all viewer headers but Host cannot add CloudFront's.)
 */
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

/**
 * The viewer's IP address from the edge's header (a bare address; `address:port` accepted too), or
 * undefined when it is absent or not an address. Call it only for a request the origin check
 * passed: anyone calling the API directly could send the header.
 */
export function viewerAddress(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = headers[VIEWER_ADDRESS_HEADER];
  if (!value) return undefined;
  if (isIP(value)) return value;
  const address = value.slice(0, value.lastIndexOf(':'));
  return isIP(address) ? address : undefined;
}
