/**
 * `GET /api/health`: liveness without a credential and without any DynamoDB call; with
 * `?deep=1`, one bounded read of the catalog table and its latency; a failed read is 503.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Health } from '../../shared/meta/health.js';
import { API_VERSION } from '../../shared/platform/route.js';
import { startStack, type Stack } from '../support/local-stack.js';
import { describeStages, RoundTripRecorder } from '../support/round-trips.js';

let stack: Stack;
const recorder = new RoundTripRecorder();
beforeAll(async () => {
  // Its recorder sees every call of the service's client: the workers' are not this request's.
  stack = await startStack({ workers: false });
  recorder.attach(stack.services.client);
});
afterAll(() => stack.stop());

describe('GET /api/health', () => {
  test('liveness: 200 with the interface and build versions, no credential', async () => {
    const reply = await stack.request('/api/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, data: { status: 'ok', interface_version: API_VERSION, build_version: 'dev' } });
    expect(reply.headers.get('x-request-id')).toBeTruthy();
  });

  test('liveness makes no DynamoDB call; deep=1 makes exactly one GetItem of the catalog', async () => {
    const live = await recorder.measure(() => stack.request('/api/health'));
    expect([live.value.status, describeStages(live.calls)]).toEqual([200, '']);
    const deep = await recorder.measure(() => stack.request('/api/health?deep=1'));
    expect([deep.value.status, describeStages(deep.calls)]).toEqual([200, 'GetItem catalog']);
  });

  test('deep=1: the database answered one read, with its latency', async () => {
    const reply = await stack.request('/api/health?deep=1');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ status: 'ok', database: { status: 'ok', latency_ms: expect.any(Number) } });
    expect(reply.body.data.database.latency_ms).toBeGreaterThanOrEqual(0);
  });

  test('an unknown deep value is a 400 naming it', async () => {
    const reply = await stack.request('/api/health?deep=yes');
    expect([reply.status, reply.body.param, reply.body.code]).toEqual([400, 'deep', 'invalid_input']);
  });

  test('only GET (405 with Allow)', async () => {
    const reply = await stack.request('/api/health', { method: 'POST' });
    expect([reply.status, reply.headers.get('allow')]).toEqual([405, 'GET']);
  });
});

describe('the health domain', () => {
  const clock = { now: () => 1000 };
  test('liveness makes no read; deep reads once, bounded', async () => {
    const reads: number[] = [];
    const health = new Health({ probe: { read: async (t) => void reads.push(t) }, clock, interfaceVersion: '1.0.0', buildVersion: 'abc' });
    expect(await health.check(false)).toEqual({ status: 'ok', interface_version: '1.0.0', build_version: 'abc' });
    expect(reads).toEqual([]);
    expect(await health.check(true)).toMatchObject({ database: { status: 'ok', latency_ms: 0 } });
    expect(reads).toEqual([2000]);
  });

  test('a failed read is 503 (Overloaded), its cause kept for the log', async () => {
    const failure = new Error('connect ECONNREFUSED');
    const health = new Health({ probe: { read: () => Promise.reject(failure) }, clock, interfaceVersion: '1.0.0', buildVersion: 'abc' });
    await expect(health.check(true)).rejects.toMatchObject({ name: 'Overloaded', cause: failure });
  });
});
