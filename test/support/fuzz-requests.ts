/**
 * fast-check generators of hostile HTTP requests for the fuzz tier: bodies of the wrong types, huge
 * and deeply nested JSON, unicode and control characters, invalid UTF-8, duplicate and array query
 * parameters, missing and doubled headers, wrong content types, random methods and paths. Valid
 * requests are mutated one field at a time, so that the fuzz also reaches past validation.
 */
import fc from 'fast-check';

/** One generated request. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  /** Query parameters in order; names may repeat. `raw` entries are appended unencoded. */
  readonly query: readonly (readonly [string, string] | { readonly raw: string })[];
  /** Headers in order; a name given twice is sent twice (the server joins them). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: string | Uint8Array;
}

/** Strings an attacker would try, plus random ones of every unit. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string(), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\u202e',
      '\ud800',
      '💥🎮',
      '%00',
      '%E0%A4%A',
      '../../etc/passwd',
      '<script>alert(1)</script>',
      "' OR 1=1 --",
      '${jndi:ldap://x}',
      '__proto__',
      'constructor',
      'null',
      'undefined',
      'NaN',
      '1e309',
      '-1',
      '0x10',
      '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b',
      'DPK_' + 'A'.repeat(40),
    ),
    weight: 3,
  },
  { arbitrary: fc.integer({ min: 200, max: 2500 }).map((n) => 'x'.repeat(n)), weight: 1 },
);

/** Values of any JSON type, with the boundary numbers ids meet. */
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
  { arbitrary: weirdString, weight: 3 },
  {
    arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), 1e308, 101, 201, 301, 401, true, false, null, [], {}, [1, 2]),
    weight: 3,
  },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
);

/** A valid body with one field replaced by a weird value, removed, or joined by an unknown one. */
export function mutated(base: Record<string, unknown>, extraFields: readonly string[] = []): fc.Arbitrary<unknown> {
  const fields = [...Object.keys(base), ...extraFields, '__proto__', 'constructor'];
  return fc.oneof(
    fc.constant(base),
    fc.tuple(fc.constantFrom(...fields), weirdValue).map(([field, value]) => ({ ...base, [field]: value })),
    fc.constantFrom(...Object.keys(base)).map((field) => {
      const { [field]: _gone, ...rest } = base;
      return rest;
    }),
    fc.dictionary(weirdString, weirdValue, { maxKeys: 4 }).map((extra) => ({ ...base, ...extra })),
  );
}

/** JSON text nested `depth` levels deep (arrays or objects). */
const deepJson = fc.tuple(fc.integer({ min: 12, max: 4000 }), fc.boolean(), fc.boolean()).map(([depth, arrays, asMetadata]) => {
  const inner = arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  return asMetadata ? `{"game_id":301,"metadata":{"m":${inner}}}` : inner;
});

/** A body as sent: JSON of a value, raw text, truncated JSON, invalid UTF-8, huge or deep. */
export function bodyOf(value: fc.Arbitrary<unknown>): fc.Arbitrary<string | Uint8Array | undefined> {
  return fc.oneof(
    { arbitrary: value.map((v) => JSON.stringify(v) ?? 'undefined'), weight: 12 },
    { arbitrary: fc.tuple(value, fc.nat()).map(([v, n]) => (JSON.stringify(v) ?? '').slice(0, n % 40)), weight: 2 },
    { arbitrary: weirdString, weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 64 }), weight: 1 },
    { arbitrary: deepJson, weight: 1 },
    {
      arbitrary: fc
        .integer({ min: 64 * 1024 - 40, max: 80 * 1024 })
        .map((n) => JSON.stringify({ game_id: 301, external_ref: 'x'.repeat(n) })),
      weight: 1,
    },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** Content types, right and wrong, single and doubled. */
export const contentTypes: fc.Arbitrary<readonly (readonly [string, string])[]> = fc.oneof(
  { arbitrary: fc.constant([['content-type', 'application/json']] as const), weight: 8 },
  {
    arbitrary: fc
      .constantFrom(
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/vnd.api+json',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
        '',
        'application/xml',
      )
      .map((t) => [['content-type', t]] as const),
    weight: 3,
  },
  { arbitrary: fc.constant([] as const), weight: 1 },
  {
    arbitrary: fc.constant([
      ['content-type', 'application/json'],
      ['content-type', 'text/plain'],
    ] as const),
    weight: 1,
  },
);

/** A header value fetch will send: printable latin-1 (fetch refuses control characters). */
export const headerValue: fc.Arbitrary<string> = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 200,
});

/** Extra query parameters: repeated names, arrays, unicode, raw malformed escapes, long values. */
export const extraQuery: fc.Arbitrary<FuzzRequest['query']> = fc.array(
  fc.oneof(
    {
      arbitrary: fc.tuple(
        fc.constantFrom('action', 'token', 'org_id', 'id', 'key_id', 'cursor', 'limit', 'session_token', 'token[]', 'a'),
        weirdString,
      ),
      weight: 4,
    },
    {
      arbitrary: fc.constantFrom(
        { raw: '%zz' },
        { raw: 'token=%E0%A4%A' },
        { raw: '&&&' },
        { raw: '=' },
        { raw: 'action' },
        { raw: 'x=1=2' },
      ),
      weight: 2,
    },
    { arbitrary: fc.integer({ min: 1000, max: 4000 }).map((n) => ['pad', 'p'.repeat(n)] as const), weight: 1 },
  ),
  { maxLength: 3 },
);

/** The URL path and query string of a request (values percent-encoded, raw entries as they are). */
export function target(request: FuzzRequest): string {
  const query = request.query.map((q) => ('raw' in q ? q.raw : `${percent(q[0])}=${percent(q[1])}`)).join('&');
  return query ? `${request.path}?${query}` : request.path;
}

/** Percent-encode as UTF-8; a lone surrogate (which `encodeURIComponent` refuses) travels as U+FFFD. */
export function percent(text: string): string {
  return encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));
}
