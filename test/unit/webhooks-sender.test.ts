/**
 * The HTTP attempt (`sender.ts`) and its SSRF guard at attempt time: each address class refused
 * (deployed: everything but public; locally: everything but loopback for localhost and
 * 127.0.0.1, and metadata always), a DNS name resolving to loopback refused when deployed, one bad
 * address among good ones refused, and the connection pinned to the checked address (the resolver
 * asked once, the socket never). Then, on a real receiver on 127.0.0.1: no redirect followed, at
 * most 64 KB of an answer read, the time limit, a refused connection.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpSender, type HostLookup } from '../../shared/webhooks/sender.js';

/** A resolver that answers `addresses` for every name and counts its calls. */
function resolver(...addresses: string[]): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const request = (url: string) => ({ url, body: '{"type":"webhook.test"}', headers: { 'webhook-id': 'msg_1_X' } });

describe('the address checks at every attempt', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.0.10', 'private'],
    ['fd12::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['192.0.2.1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('deployed: a name resolving to %s is refused as %s, without a connection', async (address, addressClass) => {
    const lookup = resolver(address);
    const report = await new HttpSender({ deployment: 'deployed', lookup }).send(request('https://hooks.partner.example/in'));
    expect(report).toEqual({ status: null, elapsedMs: expect.any(Number), error: `address refused: ${addressClass}` });
    expect(lookup.calls).toEqual(['hooks.partner.example']);
  });

  test('deployed: one bad address among public ones is refused', async () => {
    const report = await new HttpSender({ deployment: 'deployed', lookup: resolver('93.184.215.14', '10.0.0.5') }).send(
      request('https://hooks.partner.example/in'),
    );
    expect(report.error).toBe('address refused: private');
  });

  test.each([
    ['https://10.0.0.7/in', 'address refused: private'],
    ['https://169.254.169.254/latest/meta-data', 'address refused: metadata'],
    ['https://[::1]/in', 'address refused: loopback'],
    ['http://hooks.partner.example/in', 'url refused: must use https'],
    ['http://127.0.0.1:4000/in', 'url refused: must use https'],
    ['https://localhost/in', 'url refused: must not point to a loopback address'],
  ])('deployed: %s is refused before any lookup (%s)', async (url, error) => {
    const lookup = resolver('93.184.215.14');
    const report = await new HttpSender({ deployment: 'deployed', lookup }).send(request(url));
    expect(report.error).toBe(error);
    expect(lookup.calls).toEqual([]);
  });

  test('locally: metadata is refused even behind localhost, and http elsewhere than localhost', async () => {
    const local = (lookup: HostLookup) => new HttpSender({ deployment: 'local', lookup });
    expect((await local(resolver('169.254.169.254')).send(request('http://localhost:4000/in'))).error).toBe('address refused: metadata');
    expect((await local(resolver('fd00:ec2::254')).send(request('https://meta.partner.example/in'))).error).toBe(
      'address refused: metadata',
    );
    expect((await local(resolver('93.184.215.14')).send(request('http://169.254.169.254/latest'))).error).toMatch(
      /^url refused: must use https/,
    );
    expect((await local(resolver('10.0.0.1')).send(request('http://localhost:4000/in'))).error).toBe('address refused: private');
    // A public name may not lead to loopback locally either: only localhost and 127.0.0.1 may.
    expect((await local(resolver('127.0.0.1')).send(request('https://hooks.partner.example/in'))).error).toBe('address refused: loopback');
  });

  test('a name that does not resolve', async () => {
    const lookup: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await new HttpSender({ deployment: 'deployed', lookup }).send(request('https://nowhere.example/'))).error).toBe(
      'dns: no such host',
    );
  });
});

describe('the attempt, on a receiver on 127.0.0.1', () => {
  let server: Server;
  let port: number;
  const seen: { path: string; host: string | undefined; body: string; headers: IncomingMessage['headers'] }[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(204).end(),
    '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
    '/huge': (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Far more than 64 KB, written as long as the client reads.
      let left = 200;
      const write = () => {
        while (left > 0) {
          left -= 1;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    },
    '/silent': () => undefined,
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', host: req.headers.host, body, headers: req.headers });
        (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  test('localhost: resolved once, connected to the checked address, the name kept in Host; the body and headers as given', async () => {
    const lookup = resolver('127.0.0.1');
    const report = await new HttpSender({ deployment: 'local', lookup }).send(request(`http://localhost:${port}/ok`));
    expect(report).toEqual({ status: 204, elapsedMs: expect.any(Number), error: null });
    expect(lookup.calls).toEqual(['localhost']);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ path: '/ok', host: `localhost:${port}`, body: '{"type":"webhook.test"}' });
    expect(last.headers).toMatchObject({ 'webhook-id': 'msg_1_X', 'content-type': 'application/json' });
  });

  test('a redirect is the answer: not followed, reported as such', async () => {
    const before = seen.length;
    const report = await new HttpSender({ deployment: 'local' }).send(request(`http://127.0.0.1:${port}/redirect`));
    expect(report).toMatchObject({ status: 302, error: 'redirect not followed' });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/redirect']);
  });

  test('a huge answer: its status kept, at most 64 KB of it read', async () => {
    const report = await new HttpSender({ deployment: 'local' }).send(request(`http://127.0.0.1:${port}/huge`));
    expect(report).toMatchObject({ status: 200, error: null });
  });

  test('no answer within the limit: timeout', async () => {
    const report = await new HttpSender({ deployment: 'local', timeoutMs: 300 }).send(request(`http://127.0.0.1:${port}/silent`));
    expect(report.status).toBeNull();
    expect(report.error).toBe('timeout');
    expect(report.elapsedMs).toBeGreaterThanOrEqual(290);
  });

  test('nobody listening: connection refused', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    expect((await new HttpSender({ deployment: 'local' }).send(request(`http://127.0.0.1:${freePort}/`))).error).toBe('connection refused');
  });
});
