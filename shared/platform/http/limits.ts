/**
 * Size and shape limits every request meets before any work is done for it (unrestricted resource
 * consumption, OWASP API4): the body cap lives in `api.ts`; here are the query-string length and
 * the JSON nesting depth, shared by the JSON bundle and the HTML page bundle.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InvalidInput, UriTooLong } from '../errors.js';

/** Longest query string read (bytes as sent, percent-encoded); every real one is far shorter. */
export const MAX_QUERY_STRING_BYTES = 2048;

/**
 * Deepest JSON nesting read in a body (the body object itself is level 1). DynamoDB refuses
 * attributes nested deeper than 32 levels, and no request of this interface needs more than a few.
 */
export const MAX_JSON_DEPTH = 16;

/** Refuse a query string over {@link MAX_QUERY_STRING_BYTES} (414) before anything reads it. */
export function queryCap<C extends Context>(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, C> {
  return {
    before: ({ event }) => {
      if (Buffer.byteLength(event.rawQueryString ?? '') > MAX_QUERY_STRING_BYTES) {
        throw new UriTooLong(`Query string exceeds ${MAX_QUERY_STRING_BYTES} bytes`);
      }
    },
  };
}

/**
 * Refuse JSON text nested deeper than {@link MAX_JSON_DEPTH}, or holding a `\\u` escape of an
 * unpaired UTF-16 surrogate, scanning it once before it is parsed. A deep document would otherwise
 * reach recursive code (validation, serialization, the DynamoDB marshaller) and fail there as a
 * 500; an unpaired surrogate is no Unicode text at all, and DynamoDB stores only valid UTF-8.
 * Brackets inside strings do not count. Malformed text is left to the parser, which refuses it.
 */
export function assertJsonText(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x22) inString = false;
      else if (c === 0x5c) {
        if (text[i + 1] === 'u') assertPairedEscape(text, i);
        i++; // skip the escaped character
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new InvalidInput(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

const HIGH = /^\\u[dD][89abAB][0-9a-fA-F]{2}$/;
const LOW = /^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/;

/** At `at` starts a `\\uXXXX` escape: a high surrogate must be followed by a low one, a low one preceded by a high one. */
function assertPairedEscape(text: string, at: number): void {
  const escape = text.slice(at, at + 6);
  const paired = HIGH.test(escape) ? LOW.test(text.slice(at + 6, at + 12)) : !LOW.test(escape) || HIGH.test(text.slice(at - 6, at));
  if (!paired) throw new InvalidInput('Request body holds an unpaired UTF-16 surrogate (\\u escape)');
}

/**
 * Refuse a JSON body declared in another charset than UTF-8 (`application/json; charset=utf-16`):
 * the service decodes bodies as UTF-8 only (RFC 8259 §8.1), and would otherwise read something else
 * than the client sent. No charset, or `utf-8`/`utf8` (any case, quoted or not), passes.
 */
export function assertUtf8ContentType(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new InvalidInput(`Content-Type charset ${charset.slice(0, 40)} is not supported: send UTF-8 JSON`);
  }
}
