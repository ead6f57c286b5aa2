/**
 * The SSRF guard: which URLs a webhook may use, deployed and locally, the class of every kind of
 * address in its IPv4 and IPv6 spellings, and the check of a name's resolved addresses (a name
 * that resolves to loopback, or to one bad address among good ones).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { isIP } from 'node:net';
import { checkResolved, checkUrl, classifyAddress, type AddressClass } from '../../shared/webhooks/addresses.js';

/** Addresses of each class, in the spellings a resolver or the URL parser produces. */
const EXAMPLES: Record<AddressClass, string[]> = {
  public: [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ],
  loopback: [
    '127.0.0.1',
    '127.255.255.254',
    '127.1.2.3',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
  ],
  private: [
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '192.168.255.255',
    'fc00::1',
    'fd12:3456:789a::1',
    'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fd00:ec2::23',
    '::ffff:10.1.2.3',
    '::ffff:192.168.1.1',
    '64:ff9b::a00:1',
    'fec0::1',
    '64:ff9b:1::1',
  ],
  'link-local': ['169.254.0.1', '169.254.170.2', '169.254.255.255', 'fe80::1', 'fe80::1%eth0', 'febf:ffff::1', '::ffff:169.254.1.1'],
  cgnat: ['100.64.0.1', '100.127.255.255', '100.100.100.200', '::ffff:100.64.0.1'],
  unspecified: ['0.0.0.0', '0.1.2.3', '::', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff05::1:3', '::ffff:224.0.0.251'],
  metadata: [
    '169.254.169.254',
    'fd00:ec2::254',
    'FD00:EC2:0:0:0:0:0:254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    '2002:a9fe:a9fe::',
  ],
  reserved: [
    '240.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '198.19.255.255',
    '192.0.0.8',
    '192.88.99.1',
    '2001:db8::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '100::1',
    '3fff::1',
    '::1.2.3.4',
    '::2',
    '4000::1',
    'e000::1',
  ],
  invalid: [
    '',
    'localhost',
    'example.com',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '010.0.0.1',
    '0x7f.0.0.1',
    '127.1',
    '2130706433',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':1:2:3:4:5:6:7',
    '12345::',
    'g::1',
    '1:2:3:4:5:6:7::8',
    ' 8.8.8.8',
    '[::1]',
  ],
};

describe('classifyAddress', () => {
  for (const [addressClass, addresses] of Object.entries(EXAMPLES)) {
    test(`${addressClass}: ${addresses.length} spellings`, () => {
      expect(addresses.map((address) => [address, classifyAddress(address)])).toEqual(addresses.map((address) => [address, addressClass]));
    });
  }

  test('the bounds of each IPv4 range: the address just outside is another class', () => {
    const edges: [string, AddressClass][] = [
      ['9.255.255.255', 'public'],
      ['11.0.0.0', 'public'],
      ['126.255.255.255', 'public'],
      ['128.0.0.0', 'public'],
      ['169.253.255.255', 'public'],
      ['169.255.0.0', 'public'],
      ['169.254.169.253', 'link-local'],
      ['169.254.169.255', 'link-local'],
      ['192.167.255.255', 'public'],
      ['192.169.0.0', 'public'],
      ['223.255.255.255', 'public'],
      ['239.255.255.255', 'multicast'],
    ];
    expect(edges.map(([address]) => [address, classifyAddress(address)])).toEqual(edges);
  });

  test('IPv6 spellings of one address agree: compressed, full, zero-padded, upper case, embedded IPv4', () => {
    const spellings = ['fd00:ec2::254', 'fd00:0ec2:0000:0000:0000:0000:0000:0254', 'FD00:EC2::254', 'fd00:ec2:0:0::254'];
    expect(new Set(spellings.map(classifyAddress))).toEqual(new Set(['metadata']));
    expect(classifyAddress('fd00:ec2::255')).toBe('private');
    expect(classifyAddress('::ffff:127.0.0.1')).toBe(classifyAddress('::ffff:7f00:0001'));
  });
});

describe('classifyAddress reads addresses as Node does (fuzzed)', () => {
  test('an address for Node’s parser is one here, and the reverse', () => {
    const pieces = fc.constantFrom('0', '1', '9', 'a', 'F', 'ffff', '255', '00000', ':', '::', '.');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        expect([text, classifyAddress(text) !== 'invalid']).toEqual([text, isIP(text) !== 0]);
      }),
      { numRuns: 20_000 },
    );
  });

  test('every IPv6 address is the same class in its full form and as the URL parser compresses it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), fc.nat(8), (groups, zeros) => {
        // Runs of zero groups, so that compression has something to do.
        const words = groups.map((group, i) => (i < zeros ? 0 : group));
        const full = words.map((word) => word.toString(16).padStart(4, '0')).join(':');
        const compressed = new URL(`https://[${full}]/`).hostname.slice(1, -1);
        expect([compressed, classifyAddress(compressed)]).toEqual([compressed, classifyAddress(full)]);
        expect(classifyAddress(full)).not.toBe('invalid');
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('checkUrl, deployed', () => {
  const accepted = (url: string) => checkUrl(url, 'deployed');

  test('https to a name or a public address: accepted, its addresses to be public', () => {
    for (const url of [
      'https://hooks.example.com/in',
      'https://hooks.example.com:8443/in?x=1',
      'https://8.8.8.8/',
      'https://[2606:4700:4700::1111]/',
    ]) {
      const check = accepted(url);
      expect([url, check.ok && check.expect]).toEqual([url, 'public']);
    }
  });

  test('only https: http (localhost included), other schemes and relative URLs are refused', () => {
    for (const url of [
      'http://hooks.example.com/',
      'http://localhost:3000/',
      'http://127.0.0.1/',
      'ftp://hooks.example.com/',
      'file:///etc/passwd',
      'gopher://x/',
      'javascript:alert(1)',
    ]) {
      expect([url, accepted(url)]).toEqual([url, { ok: false, reason: 'must use https' }]);
    }
    for (const url of ['/relative', 'hooks.example.com', '', 'https://', 'https://exa mple.com/']) {
      expect([url, accepted(url)]).toEqual([url, { ok: false, reason: 'must be an absolute URL' }]);
    }
  });

  test('credentials in the URL are refused', () => {
    expect(accepted('https://user:pass@hooks.example.com/')).toEqual({ ok: false, reason: 'must not contain a user name or password' });
    expect(accepted('https://user@hooks.example.com/')).toEqual({ ok: false, reason: 'must not contain a user name or password' });
  });

  test('a host that is an address of a refused class, in any spelling the URL parser takes', () => {
    const refused: [string, string][] = [
      ['https://127.0.0.1/', 'a loopback address'],
      ['https://2130706433/', 'a loopback address'],
      ['https://0x7f.1/', 'a loopback address'],
      ['https://017700000001/', 'a loopback address'],
      ['https://127.1/', 'a loopback address'],
      ['https://127.0.0.1./', 'a loopback address'],
      ['https://[::1]/', 'a loopback address'],
      ['https://[::ffff:127.0.0.1]/', 'a loopback address'],
      ['https://[0:0:0:0:0:ffff:7f00:1]/', 'a loopback address'],
      ['https://localhost/', 'a loopback address'],
      ['https://LOCALHOST./', 'a loopback address'],
      ['https://app.localhost/', 'a loopback address'],
      ['https://10.0.0.8/', 'a private address'],
      ['https://[fd12::1]/', 'a private address'],
      ['https://169.254.10.10/', 'a link-local address'],
      ['https://[fe80::1]/', 'a link-local address'],
      ['https://100.64.1.1/', 'a shared (CGNAT) address'],
      ['https://0.0.0.0/', 'an unspecified address'],
      ['https://0/', 'an unspecified address'],
      ['https://[::]/', 'an unspecified address'],
      ['https://224.0.0.1/', 'a multicast address'],
      ['https://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
      ['https://[fd00:ec2::254]/', 'a cloud metadata address'],
      ['https://[::ffff:a9fe:a9fe]/', 'a cloud metadata address'],
      ['https://2852039166/', 'a cloud metadata address'],
      ['https://192.0.2.1/', 'a reserved address'],
    ];
    for (const [url, words] of refused) expect([url, accepted(url)]).toEqual([url, { ok: false, reason: `must not point to ${words}` }]);
  });
});

describe('checkUrl, locally', () => {
  const local = (url: string) => checkUrl(url, 'local');

  test('http://localhost and http://127.0.0.1 (any port, any path) are accepted, their addresses to be loopback', () => {
    for (const url of [
      'http://localhost/',
      'http://localhost:8787/dev/webhooks',
      'http://127.0.0.1:3000/in',
      'https://localhost/',
      'HTTP://LocalHost:1/',
    ]) {
      const check = local(url);
      expect([url, check.ok && check.expect]).toEqual([url, 'loopback']);
    }
  });

  test('https to anywhere public still works; http to anything else does not', () => {
    const check = local('https://hooks.example.com/');
    expect(check.ok && check.expect).toBe('public');
    const httpRefusal = { ok: false, reason: 'must use https (or http to localhost or 127.0.0.1)' };
    for (const url of ['http://hooks.example.com/', 'http://127.0.0.2/', 'http://[::1]/', 'http://app.localhost/', 'http://10.0.0.1/']) {
      expect([url, local(url)]).toEqual([url, httpRefusal]);
    }
  });

  test('metadata, link-local and private addresses stay refused locally', () => {
    expect(local('https://169.254.169.254/')).toEqual({ ok: false, reason: 'must not point to a cloud metadata address' });
    expect(local('http://169.254.169.254/')).toEqual({ ok: false, reason: 'must use https (or http to localhost or 127.0.0.1)' });
    expect(local('https://[fd00:ec2::254]/')).toEqual({ ok: false, reason: 'must not point to a cloud metadata address' });
    expect(local('https://169.254.1.1/')).toEqual({ ok: false, reason: 'must not point to a link-local address' });
    expect(local('https://192.168.1.10/')).toEqual({ ok: false, reason: 'must not point to a private address' });
  });
});

describe('checkResolved: every resolved address must be acceptable', () => {
  test('public addresses: accepted, to be connected to as checked', () => {
    expect(checkResolved(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])).toEqual({
      ok: true,
      addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
  });

  test('a DNS name that resolves to loopback: its URL passes, its resolution does not', () => {
    const check = checkUrl('https://rebind.attacker.example/hook', 'deployed');
    expect(check.ok).toBe(true);
    const expect_ = check.ok ? check.expect : 'public';
    for (const resolved of [['127.0.0.1'], ['::1'], ['::ffff:127.0.0.1']]) {
      expect(checkResolved(resolved, expect_)).toEqual({
        ok: false,
        reason: 'resolves to a loopback address',
        address: resolved[0],
        addressClass: 'loopback',
      });
    }
  });

  test('one bad address among good ones refuses the lot (whichever one a connection would pick)', () => {
    expect(checkResolved(['93.184.215.14', '10.0.0.5'])).toMatchObject({ ok: false, address: '10.0.0.5', addressClass: 'private' });
    expect(checkResolved(['2606:4700:4700::1111', 'fd00:ec2::254'])).toMatchObject({ ok: false, addressClass: 'metadata' });
    expect(checkResolved(['8.8.8.8', 'not an address'])).toMatchObject({ ok: false, addressClass: 'invalid' });
  });

  test('each refused class, as a resolver would answer it', () => {
    for (const [addressClass, addresses] of Object.entries(EXAMPLES)) {
      if (addressClass === 'public') continue;
      for (const address of addresses) expect(checkResolved([address])).toMatchObject({ ok: false, addressClass });
    }
  });

  test('no address at all is refused', () => {
    expect(checkResolved([])).toEqual({ ok: false, reason: 'resolves to no address' });
  });

  test('locally, localhost must resolve to loopback only; metadata is refused even there', () => {
    expect(checkResolved(['127.0.0.1', '::1'], 'loopback')).toEqual({ ok: true, addresses: ['127.0.0.1', '::1'] });
    expect(checkResolved(['127.0.0.1', '8.8.8.8'], 'loopback')).toMatchObject({ ok: false, address: '8.8.8.8', addressClass: 'public' });
    expect(checkResolved(['169.254.169.254'], 'loopback')).toMatchObject({ ok: false, addressClass: 'metadata' });
    expect(checkResolved(['fd00:ec2::254'], 'loopback')).toMatchObject({ ok: false, addressClass: 'metadata' });
    // A name other than localhost is held to the deployed rule locally too: it must not reach loopback.
    const other = checkUrl('https://hooks.example.com/', 'local');
    expect(checkResolved(['127.0.0.1'], other.ok ? other.expect : 'loopback')).toMatchObject({ ok: false, addressClass: 'loopback' });
  });
});
