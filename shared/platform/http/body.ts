/**
 * The JSON body of a request: capped and checked before it is parsed (size, nesting, charset), then
 * parsed; every refusal a domain error (400, 413). On a key-authenticated route a refusal waits for
 * the key to be authenticated (`shared/platform/http/pipeline.ts`: a missing or invalid key is 401 whatever the
 * body, a valid key's refused input is counted).
 */
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInput, PayloadTooLarge } from '../errors.js';
import type { ApiContext } from './pipeline.js';
import { namedError } from './answers.js';
import { assertJsonText, assertUtf8ContentType } from './limits.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** Largest request body accepted (docs/decisions.md#request-limits: over 64 KiB is 413). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The JSON body: capped and checked (size, nesting, charset), then parsed. Middy's parser errors
 * become the service's own (400). On a key-authenticated route (`deferred`) a refusal is kept for
 * the handler, which decides it once the key is authenticated.
 */
export function jsonBody(deferred: boolean): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  const cap = bodyCap();
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      try {
        await cap.before!(request);
        await parser.before!(request);
      } catch (error) {
        const refusal = namedError(error);
        if (!deferred || !refusal) throw refusal ?? error;
        request.context.bodyRefusal = refusal;
      }
    },
  };
}

/** Refuse empty, oversized and too deeply nested bodies before parsing them. */
export function bodyCap(): middy.MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    before: ({ event }) => {
      assertUtf8ContentType(event.headers['content-type']);
      if (!event.body) throw new InvalidInput('Request body is required');
      const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body);
      if (bytes > MAX_BODY_BYTES) throw new PayloadTooLarge(`Request body exceeds ${MAX_BODY_BYTES} bytes`);
      assertJsonText(event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body);
    },
  };
}
