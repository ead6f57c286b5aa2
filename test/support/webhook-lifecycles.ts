/**
 * Token lifecycles for the webhook invariant (test/integration/webhooks-invariant.test.ts): their
 * generators, with every optional field of create-session and consume-session drawn from its whole
 * range, and what the events of a lifecycle must be. A lifecycle is a token created through REST
 * create-session or MCP `create_session`, bound to a player or not, then consumed (consume-session,
 * by its player when bound; or the play page's `POST /play/session`, which plays unbound tokens
 * only), revoked, or left to expire.
 */
import fc from 'fast-check';

/** What a token is minted for: one of org 1's games or streams (two of each; one of each requires a token on its page). */
type Target = { readonly game_id: number } | { readonly stream_id: number };

/** How a token ends. */
type Fate = 'consume' | 'play' | 'revoke' | 'expire';

/** One generated lifecycle. Absent optional fields are absent keys of `fields`, not `undefined`. */
export interface Lifecycle {
  readonly via: 'rest' | 'mcp';
  readonly target: Target;
  /** The optional create-session fields as sent: external_ref, metadata, player_ref, expires_in_minutes (each absent, null or a value). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly fate: Fate;
  /** consume-session's optional player_uuid (absent key: not sent); a bound token's player when it has one. */
  readonly consume: Readonly<Record<string, unknown>>;
}

/** org 1's games and streams (infra/local/seed.ts): 101 and 201 require a token on their pages, 102 and 202 are open. */
const GAMES = [101, 102] as const;
const STREAMS = [201, 202] as const;

/** The largest serialized metadata create-session accepts (shared/sessions/schemas.ts). */
const METADATA_MAX_BYTES = 4096;

/** A string of whole characters (no lone surrogate), of any script, emoji included. */
const text = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength });

/** An optional field: absent (no key), null, or a value. */
function optional<T>(name: string, value: fc.Arbitrary<T>): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    { arbitrary: fc.constant({}), weight: 2 },
    { arbitrary: fc.constant({ [name]: null }), weight: 1 },
    { arbitrary: value.map((v) => ({ [name]: v })), weight: 4 },
  );
}

/** Numbers at the edges of a double and of DynamoDB's own number type (38 digits, up to 1e125). */
const edgeNumber = fc.constantFrom(
  0,
  -1,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 63),
  1e125,
  9.999999999999999e125,
  1e126,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  5e-324,
  1e-130,
  0.1 + 0.2,
  1.2345678901234568e29,
);

/** Metadata just under the 4,096-byte bound: `slack` bytes under it, in ASCII or in two- and four-byte characters. */
const nearBound = fc.tuple(fc.integer({ min: 0, max: 24 }), fc.constantFrom('x', 'é', '🎮', '"', '\\')).map(([slack, unit]) => {
  const target = METADATA_MAX_BYTES - slack;
  let fill = '';
  const size = (s: string) => Buffer.byteLength(JSON.stringify({ pad: s, n: 1 }));
  // Grow by the unit while it fits (a quote or backslash serializes as two bytes).
  const step = Buffer.byteLength(JSON.stringify(unit)) - 2;
  fill = unit.repeat(Math.max(0, Math.floor((target - size('')) / step)));
  while (size(fill) > target) fill = fill.slice(0, -unit.length);
  return { pad: fill, n: 1 };
});

/** A metadata object: empty, flat, nested, unicode keys and values, edge numbers, or near the size bound. */
const metadataObject: fc.Arbitrary<Record<string, unknown>> = fc
  .oneof(
    { arbitrary: fc.constant({}), weight: 1 },
    { arbitrary: fc.dictionary(text(12), fc.oneof(text(30), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 }), weight: 3 },
    { arbitrary: fc.dictionary(text(8), fc.jsonValue({ maxDepth: 6 }), { maxKeys: 5 }), weight: 3 },
    { arbitrary: fc.dictionary(text(8), edgeNumber, { minKeys: 1, maxKeys: 4 }), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: 'deep' } } } } } } } } } },
        { list: [1, [2, [3, [4]]], { k: [] }], empty: { x: {} } },
        { '': '', ' ': ' ', ключ: 'значение', 键: '值', '🎮': '💥', 'rtl‮': 'a‮b' },
        { constructor: 'c', toString: 't', hasOwnProperty: 'h' },
      ),
      weight: 2,
    },
    { arbitrary: nearBound, weight: 2 },
  )
  // What JSON carries: -0 becomes 0 and keys keep the order given. Bigger than the bound: the generator's mistake, never sent.
  .map((m) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>)
  // The API refuses a body with a `__proto__` key (400): that is its parser's guard, not the pipeline's.
  .filter((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES && !JSON.stringify(m).includes('"__proto__":'));

/** external_ref: up to 255 characters (UTF-16 units, as the schema counts them), any script. */
const externalRef: fc.Arbitrary<string> = fc.oneof(
  text(40),
  fc.constantFrom('', 'order-1', 'x'.repeat(255), 'é'.repeat(255), '🎮'.repeat(127), `${'a'.repeat(254)}é`, '\u0000\t\n', ' '),
);

/** player_ref: 1 to 128 printable ASCII characters, its bounds included. */
const playerRef: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.stringMatching(/^[\x20-\x7e]{1,128}$/),
  fc.constantFrom(' ', '~', 'p'.repeat(128), 'player "7" \\ <b>'),
);

/** A lifecycle whose token ends by `fates`. A token left to expire lives 1 to 3 minutes; the others any lifetime, expiry included. */
export function lifecycle(fates: readonly Fate[] = ['consume', 'play', 'revoke', 'expire']): fc.Arbitrary<Lifecycle> {
  return fc.constantFrom(...fates).chain((fate) =>
    fc
      .record({
        via: fc.constantFrom<'rest' | 'mcp'>('rest', 'mcp'),
        // The play page starts sessions of token-required games and streams; consume-session any.
        target:
          fate === 'play'
            ? fc.constantFrom<Target>({ game_id: 101 }, { stream_id: 201 })
            : fc.oneof(
                fc.constantFrom(...GAMES).map((game_id) => ({ game_id })),
                fc.constantFrom(...STREAMS).map((stream_id) => ({ stream_id })),
              ),
        fields: fc
          .tuple(
            optional('external_ref', externalRef),
            optional('metadata', metadataObject),
            // A play page never starts a bound token (it names no player): those lifecycles have none.
            fate === 'play' ? fc.constant({}) : optional('player_ref', playerRef),
            fate === 'expire'
              ? fc.integer({ min: 1, max: 3 }).map((m) => ({ expires_in_minutes: m }))
              : optional('expires_in_minutes', fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 43_200 }))),
          )
          .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>),
        fate: fc.constant(fate),
        consume: fate === 'consume' ? optional('player_uuid', fc.oneof(fc.uuid(), text(40))) : fc.constant({}),
      })
      // A bound token is consumed by its player (another is refused and leaves it active).
      .map((l) =>
        typeof l.fields.player_ref === 'string' && fate === 'consume' ? { ...l, consume: { player_uuid: l.fields.player_ref } } : l,
      ),
  );
}

/** An endpoint's filter as the contract gives it: null or absent for every session; else the games and streams it wants. */
export interface Filter {
  readonly game_ids?: readonly number[] | null;
  readonly stream_ids?: readonly number[] | null;
}

/**
 * Whether a token's session events pass an endpoint's filter: no filter passes all; a list given
 * passes the tokens of the games (or streams) it names, and a list absent or null passes every
 * game (or stream), as a key's allow-lists do.
 */
export function passes(
  filter: Filter | null | undefined,
  token: { readonly game_id: number | null; readonly stream_id: number | null },
): boolean {
  if (!filter) return true;
  if (token.game_id !== null) return !filter.game_ids || filter.game_ids.includes(token.game_id);
  return !filter.stream_ids || (token.stream_id !== null && filter.stream_ids.includes(token.stream_id));
}

/** The intersection of two optional lists (absent or null: everything). */
export function intersect(a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): readonly number[] | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a.filter((x) => b.includes(x));
}
