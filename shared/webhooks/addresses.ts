/**
 * Where a webhook may be sent: the guard against server-side request forgery, as pure functions. A
 * partner's URL could otherwise make the service call its own network: loopback, the VPC, the
 * instance metadata service that hands out credentials. Two checks, both needed:
 * - {@link checkUrl} on the URL, at create and update (a refusal is a 400 on `url`) and again at
 *   every attempt: the scheme, and the host when it is an address;
 * - {@link checkResolved} on every address the host's name resolves to, at every attempt, right
 *   before connecting to one of them (and only to one of them: a second lookup could answer
 *   differently, which is how DNS rebinding gets past a check).
 * Resolving, connecting and refusing redirects belong to the sender; nothing here does I/O.
 */

/** Where the service runs: deployed (AWS), or locally (`npm start`), where a receiver on the same machine is allowed. */
export type Deployment = 'deployed' | 'local';

/**
 * What an address is, for this guard. Only `public` is a partner's server; `loopback` is allowed
 * locally for `localhost` and `127.0.0.1`; every other class is refused everywhere. `reserved`
 * gathers what no partner server uses (documentation, benchmarking, broadcast, protocol ranges,
 * Teredo, anything IPv6 outside global unicast); `invalid` is not an address at all.
 */
export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'cgnat' | 'unspecified' | 'multicast' | 'metadata' | 'reserved' | 'invalid';

/** What a host's addresses must all be: public, or (locally, for `localhost` and `127.0.0.1`) loopback. */
export type Expected = 'public' | 'loopback';

/** The verdict on a URL: accepted, with what its host's addresses must be; or refused, with a sentence for the 400. */
export type UrlCheck =
  { readonly ok: true; readonly url: URL; readonly expect: Expected } | { readonly ok: false; readonly reason: string };

/** The verdict on a host's addresses: all acceptable; or refused, naming the first that is not (for logs, not for the partner). */
export type ResolvedCheck =
  | { readonly ok: true; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly address?: string; readonly addressClass?: AddressClass };

/** Hosts the local receiver may use, over http too. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/** Words for each refused class, in the 400's sentence. */
const CLASS_WORDS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  cgnat: 'a shared (CGNAT) address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  metadata: 'a cloud metadata address',
  reserved: 'a reserved address',
  invalid: 'an invalid address',
};

/**
 * Whether a webhook URL may be used, `deployment` deciding: deployed, only `https://` to a public
 * host; locally also `http://localhost` and `http://127.0.0.1`. A host given as an address is
 * classified here; a name is checked once resolved ({@link checkResolved} with `expect`).
 */
export function checkUrl(raw: string, deployment: Deployment): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  // Credentials in a URL would be shown by list-webhooks and sent with every attempt.
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not contain a user name or password' };
  // The URL parser has already turned every spelling of an IPv4 address (`2130706433`, `0x7f.1`) into dotted decimal.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const local = deployment === 'local' && LOCAL_HOSTS.has(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    return { ok: false, reason: deployment === 'local' ? 'must use https (or http to localhost or 127.0.0.1)' : 'must use https' };
  }
  if (local) return { ok: true, url, expect: 'loopback' };
  // RFC 6761: `localhost` and its subdomains always mean this machine, whatever a resolver says.
  if (/(^|\.)localhost\.?$/.test(host)) return { ok: false, reason: `must not point to ${CLASS_WORDS.loopback}` };
  // A host with a colon can only be an IPv6 address (the URL parser refuses it in a name).
  const literal = parseIpv4(host) !== undefined || host.includes(':') ? classifyAddress(host) : undefined;
  if (literal !== undefined && literal !== 'public') return { ok: false, reason: `must not point to ${CLASS_WORDS[literal]}` };
  return { ok: true, url, expect: 'public' };
}

/**
 * Whether a host's resolved addresses may be connected to: all of them must be `expect` (public,
 * unless {@link checkUrl} said loopback), since a name with one bad address among good ones is
 * the classic way round a check that looks at one. None at all is refused too. Metadata is never
 * acceptable, whatever `expect` says.
 */
export function checkResolved(addresses: readonly string[], expect: Expected = 'public'): ResolvedCheck {
  if (addresses.length === 0) return { ok: false, reason: 'resolves to no address' };
  for (const address of addresses) {
    const addressClass = classifyAddress(address);
    // `expect` is public or loopback, so metadata (or any other class) never gets through.
    if (addressClass !== expect) {
      const words = addressClass === 'public' ? 'a public address (only localhost is expected)' : CLASS_WORDS[addressClass];
      return { ok: false, reason: `resolves to ${words}`, address, addressClass };
    }
  }
  return { ok: true, addresses };
}

/**
 * The class of an IP address, as a resolver or the URL parser gives it: IPv4 in dotted decimal
 * (no octal or hex: those are refused as invalid, the URL parser has normalized them before), or
 * IPv6 in any textual form, with or without a zone (`%eth0`). An IPv4 address inside IPv6
 * (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is the class of that IPv4
 * address, since that is where a connection to it ends up.
 */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return classifyIpv4(v4);
  const v6 = parseIpv6(address.replace(/%[^%]+$/, ''));
  return v6 === undefined ? 'invalid' : classifyIpv6(v6);
}

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/** A dotted-decimal IPv4 address as a 32-bit number. */
function parseIpv4(text: string): number | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  return match.slice(1).reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** An IPv6 address as a 128-bit number: hex groups, at most one `::`, optionally ending in dotted IPv4. */
function parseIpv6(text: string): bigint | undefined {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  const last = groups.at(-1)!;
  const tail = last.at(-1);
  const embedded = tail === undefined ? undefined : parseIpv4(tail);
  if (embedded !== undefined) last.splice(-1, 1, (embedded >>> 16).toString(16), (embedded & 0xffff).toString(16));
  if (!groups.flat().every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const count = groups.flat().length;
  const filled =
    halves.length === 2 ? (count < 8 ? [...groups[0]!, ...Array<string>(8 - count).fill('0'), ...groups[1]!] : undefined) : groups[0];
  if (filled?.length !== 8) return undefined;
  return filled.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** Every non-public IPv4 range (first address, prefix length, class), the narrower before the wider that holds it. */
const IPV4_RANGES = ranges4([
  // The instance metadata service (AWS, and the address other clouds copied): credentials for the asking.
  ['169.254.169.254', 32, 'metadata'],
  // "This network": 0.0.0.0 reaches the local machine on Linux.
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  // Class E and the broadcast address.
  ['240.0.0.0', 4, 'reserved'],
]);

/** Ranges as numbers once: each one's prefix, the bits below it as a divisor (not `>>>`, which cannot shift by 32). */
function ranges4(table: readonly (readonly [string, number, AddressClass])[]) {
  return table.map(([first, bits, addressClass]) => ({
    size: 2 ** (32 - bits),
    prefix: Math.floor(parseIpv4(first)! / 2 ** (32 - bits)),
    addressClass,
  }));
}

function classifyIpv4(value: number): AddressClass {
  return IPV4_RANGES.find(({ size, prefix }) => Math.floor(value / size) === prefix)?.addressClass ?? 'public';
}

/** Where an IPv4 address sits in an IPv6 one that leads to it: the bit its 32 bits start at, from the right. */
interface Embedded {
  readonly ipv4At: bigint;
}

/**
 * The IPv6 ranges (first address, prefix length, class or embedded IPv4), the narrower before the
 * wider that holds it; outside all of them, only global unicast (2000::/3) is public.
 */
const IPV6_RANGES = ranges6([
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // IPv4-mapped: a dual-stack socket connects to the IPv4 address.
  ['::ffff:0:0', 96, { ipv4At: 0n }],
  // NAT64 (well-known prefix): the gateway connects to the IPv4 address, from inside the VPC.
  ['64:ff9b::', 96, { ipv4At: 0n }],
  ['64:ff9b:1::', 48, 'private'],
  // The metadata service over IPv6 (Nitro instances).
  ['fd00:ec2::254', 128, 'metadata'],
  // IPv4-compatible (deprecated) and every other address under ::/8: nothing a partner uses.
  ['::', 8, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  // IETF protocol assignments, Teredo (2001::/32, which tunnels to an IPv4 address it hides) among them.
  ['2001::', 23, 'reserved'],
  // 6to4: a relay forwards to the IPv4 address in bits 16 to 47.
  ['2002::', 16, { ipv4At: 80n }],
  ['3fff::', 20, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  // Site-local (deprecated): private in practice.
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
  ['2000::', 3, 'public'],
]);

function ranges6(table: readonly (readonly [string, number, AddressClass | Embedded])[]) {
  return table.map(([first, bits, verdict]) => ({ shift: BigInt(128 - bits), prefix: parseIpv6(first)! >> BigInt(128 - bits), verdict }));
}

function classifyIpv6(value: bigint): AddressClass {
  const verdict = IPV6_RANGES.find(({ shift, prefix }) => value >> shift === prefix)?.verdict ?? 'reserved';
  return typeof verdict === 'string' ? verdict : classifyIpv4(Number((value >> verdict.ipv4At) & 0xffffffffn));
}
