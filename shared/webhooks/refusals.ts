/** The webhooks feature's 404s, worded once for REST and MCP. */
import { NotFound } from '../platform/errors.js';

/** The 404 of an endpoint that is not the org's (absent, or another org's: the same answer). */
export function webhookNotFound(orgId: number, id: number): NotFound {
  return new NotFound(`Webhook ${id} not found in organization ${orgId}`);
}

/** The 404 of a delivery that is not the org's (absent, expired, or another org's endpoint's). */
export function deliveryNotFound(orgId: number, id: string): NotFound {
  return new NotFound(`Delivery ${id} not found in organization ${orgId}`);
}
