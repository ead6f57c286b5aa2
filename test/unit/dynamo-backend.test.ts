/**
 * Which DynamoDB the local run and the tests use (`infra/local/dynamo.ts`): the backend the
 * environment names, a real region told from an emulator's endpoint, and each Jest worker's own
 * DynamoDB Local.
 */
import { describe, expect, test } from '@jest/globals';
import { awsRegionOf, configuredBackend, workerEndpoint } from '../../infra/local/dynamo.js';

describe('configuredBackend', () => {
  test('dynalite by default, and by name', () => {
    expect(configuredBackend({})).toEqual({ kind: 'dynalite' });
    expect(configuredBackend({ backend: 'dynalite' })).toEqual({ kind: 'dynalite' });
  });

  test('DynamoDB Local when asked', () => {
    expect(configuredBackend({ backend: 'local' })).toEqual({ kind: 'local' });
  });

  test('a given endpoint wins over the backend named', () => {
    expect(configuredBackend({ backend: 'local', endpoint: 'http://127.0.0.1:8000' })).toEqual({
      kind: 'endpoint',
      endpoint: 'http://127.0.0.1:8000',
    });
  });

  test('an unknown backend is refused, not read as the default', () => {
    expect(() => configuredBackend({ backend: 'Local' })).toThrow('DYNAMODB_BACKEND must be dynalite or local, not Local');
  });
});

describe('awsRegionOf', () => {
  test.each([
    ['https://dynamodb.eu-west-1.amazonaws.com', 'eu-west-1'],
    ['https://dynamodb.us-east-1.amazonaws.com/', 'us-east-1'],
  ])('%s is the region %s', (endpoint, region) => {
    expect(awsRegionOf(endpoint)).toBe(region);
  });

  test.each([
    'http://127.0.0.1:8000',
    // Not HTTPS, a lookalike host, a path: not taken for a region (the client then signs with dummy credentials).
    'http://dynamodb.eu-west-1.amazonaws.com',
    'https://dynamodb.eu-west-1.amazonaws.com.example.org',
    'https://dynamodb.eu-west-1.amazonaws.com/x',
  ])('%s is no region', (endpoint) => {
    expect(awsRegionOf(endpoint)).toBeUndefined();
  });
});

describe('workerEndpoint', () => {
  const list = 'http://127.0.0.1:1,http://127.0.0.1:2';

  test('none when the run started no DynamoDB Local', () => {
    expect(workerEndpoint(undefined, '1')).toBeUndefined();
    expect(workerEndpoint('', '1')).toBeUndefined();
  });

  test('worker n takes the n-th endpoint, wrapping around', () => {
    expect(workerEndpoint(list, '1')).toBe('http://127.0.0.1:1');
    expect(workerEndpoint(list, '2')).toBe('http://127.0.0.1:2');
    expect(workerEndpoint(list, '3')).toBe('http://127.0.0.1:1');
  });

  test('outside Jest (no worker id) the first one', () => {
    expect(workerEndpoint(list, undefined)).toBe('http://127.0.0.1:1');
  });
});
