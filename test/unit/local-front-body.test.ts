/**
 * The local front stops reading a body at its limit: it answers 413 as soon as
 * the limit is passed and reads no more, instead of reading a 300 MB upload to its end first.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFront } from '../../infra/local/front.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createFront({ loadHandler: async () => async () => ({ statusCode: 200, body: '{}' }) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The body's size the client sends at most, unless an answer stops it first. */
const OFFERED = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * POST a body of up to {@link OFFERED} bytes, streamed with backpressure; stop sending once an
 * answer arrives. Resolves with the answer's status and how many bytes had been handed to the socket by then.
 */
function streamUntilAnswered(): Promise<{ status: number; sentBeforeAnswer: number; nosniff: unknown }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/org-api-keys?action=consume-session' });
    req.setHeader('content-type', 'application/json');
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      res.resume();
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, sentBeforeAnswer, nosniff: res.headers['x-content-type-options'] });
        req.destroy();
      });
    });
    // The front may close the connection while the client still sends: expected once answered.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && sent < OFFERED) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

test('a body over the limit: 413 before the client has sent much more than the limit, not after all of it', async () => {
  const { status, sentBeforeAnswer, nosniff } = await streamUntilAnswered();
  expect(status).toBe(413);
  expect(nosniff).toBe('nosniff');
  // The front's limit is 1 MiB; socket buffers on both sides hold a few MiB more at most.
  expect(sentBeforeAnswer).toBeLessThan(OFFERED / 4);
});

test('a Content-Length over the limit: 413 at once, without waiting for the body', async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/org-api-keys?action=consume-session' });
    req.setHeader('content-length', String(300 * 1024 * 1024));
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    req.write(CHUNK);
  });
  expect(status).toBe(413);
}, 5_000);

test('the front still answers the next request (on a new connection)', async () => {
  const res = await fetch(`http://127.0.0.1:${port}/api/nowhere`);
  expect(res.status).toBe(404);
});
