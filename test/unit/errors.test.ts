/**
 * THE error table (`shared/platform/errors.ts`): every named error has its row, every answer of a
 * refusal (JSON, pages, play refusals, MCP, routing) reads it, 5xx answers say nothing but the
 * row's words, and no other production file decides an error status itself.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as errors from '../../shared/platform/errors.js';
import { DomainError, errorStatus, errorTable, isRequestRefusal, Overloaded, RateLimited } from '../../shared/platform/errors.js';
import { refusalError, type PlayRefusal } from '../../shared/play/play.js';
import { errorOutcome, errorResponse } from '../../shared/platform/http/answers.js';
import { namedError } from '../../shared/platform/http/named-error.js';
import { allowedMethods, routingError, routingErrors, routingResponse, type RoutingRefusal } from '../../shared/routes.js';
import { API_PATH } from '../../shared/platform/route.js';

type AnyErrorClass = new (...args: unknown[]) => DomainError;
/** Every named error class the module exports. */
const classes = Object.values(errors).filter(
  (value) => typeof value === 'function' && value.prototype instanceof DomainError,
) as AnyErrorClass[];
/** One instance of each, built with any arguments: the name is the class's, whatever the message. */
const instances = classes.map((Class) => new Class('caller words', 1));

describe('the error table', () => {
  test('every named error class has its row, and every row but Internal names a class', () => {
    expect(classes.length).toBeGreaterThan(10);
    for (const [i, error] of instances.entries()) {
      expect(error.name).toBe(classes[i]!.name);
      expect(Object.keys(errorStatus)).toContain(error.name);
    }
    expect(
      Object.keys(errorStatus)
        .filter((name) => name !== 'Internal')
        .sort(),
    ).toEqual(classes.map((c) => c.name).sort());
    expect(errorStatus.Internal).toBe(500);
  });

  test('every named error is answered with its row’s status', () => {
    for (const error of instances) {
      expect([error.name, errorOutcome(error).status, errorResponse(error).statusCode]).toEqual([
        error.name,
        errorStatus[error.name],
        errorStatus[error.name],
      ]);
    }
  });

  test('a 5xx error says only its class’s fixed words; anything else thrown is a 500 that says nothing of its cause', () => {
    for (const error of instances.filter((e) => errorStatus[e.name] >= 500)) expect(error.message).not.toContain('caller words');
    const failure = errorResponse(new Error('table tokens-prod-7 is not reachable'));
    expect(failure.statusCode).toBe(500);
    expect(JSON.parse(failure.body!)).toEqual({ success: false, error: 'Internal server error', code: 'internal_error' });
    const busy = new Overloaded({ cause: new Error('ProvisionedThroughputExceededException on keys') });
    expect(errorOutcome(busy)).toEqual({ status: 503, message: 'Service busy, retry shortly', headers: { 'retry-after': '1' } });
  });

  test('a refusal of the request itself is every status below 500 but 429 (MCP answers it as a tool error)', () => {
    for (const error of instances)
      expect([error.name, isRequestRefusal(error)]).toEqual([error.name, errorStatus[error.name] < 500 && error.name !== 'RateLimited']);
    expect(isRequestRefusal(new Error('x'))).toBe(false);
  });
});

describe('answers read the table', () => {
  test('middy’s own client errors become InvalidInput (400) in the service’s words', () => {
    const unsupported = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, expose: true });
    const malformed = Object.assign(new Error('Invalid or malformed JSON was provided'), { statusCode: 422, expose: true });
    expect(namedError(unsupported)).toBeInstanceOf(errors.InvalidInput);
    expect(errorOutcome(unsupported)).toEqual({ status: 400, message: 'Content-Type must be application/json', headers: {} });
    expect(errorOutcome(malformed)).toEqual({ status: 400, message: 'Request body is not valid JSON', headers: {} });
    expect(namedError(Object.assign(new Error('x'), { statusCode: 500, expose: false }))).toBeUndefined();
  });

  test('a 429 carries Retry-After', () => {
    expect(errorOutcome(new RateLimited('minute', 7)).headers).toEqual({ 'retry-after': '7' });
  });

  test('play refusals keep their statuses, read from the table', () => {
    const expected: Record<PlayRefusal, number> = {
      'unknown-playable': 404,
      'missing-token': 403,
      'malformed-token': 400,
      'unknown-token': 404,
      'wrong-resource': 403,
      'player-bound': 403,
      consumed: 410,
      expired: 410,
      revoked: 410,
    };
    const statuses = Object.fromEntries(Object.entries(refusalError).map(([reason, name]) => [reason, errorStatus[name]]));
    expect(statuses).toEqual(expected);
  });

  test('every routing answer is a named error of the table, rendered like a function’s', () => {
    for (const [refusal, answer] of Object.entries(routingErrors) as [RoutingRefusal, { status: number; error: string }][]) {
      const error = routingError(refusal);
      expect(answer).toEqual({ status: errorStatus[error.name], error: error.message });
      const response = routingResponse(refusal, ['GET']);
      expect(response.statusCode).toBe(answer.status);
      expect(JSON.parse(response.body!)).toEqual({
        success: false,
        error: answer.error,
        code: errorTable[error.name][1],
        ...(error.param ? { param: error.param } : {}),
      });
    }
  });

  test('a 405 carries Allow, listing the methods of the path and action, sorted', () => {
    expect(routingResponse('method-not-allowed', ['GET', 'POST']).headers).toMatchObject({ allow: 'GET, POST' });
    expect(routingResponse('not-found').headers).not.toHaveProperty('allow');
    expect(allowedMethods(API_PATH, 'create-session')).toEqual(['POST']);
    expect(allowedMethods(API_PATH, 'validate-session')).toEqual(['GET']);
    expect(allowedMethods(API_PATH, undefined)).toEqual(['DELETE', 'GET', 'PATCH', 'POST']);
    expect(allowedMethods('/api/mcp', undefined)).toEqual(['POST']);
    expect(allowedMethods('/api/nothing', undefined)).toEqual([]);
  });
});

/** Production source files (TypeScript) under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Files that may set a 4xx status themselves: the demo game stands in for a partner's static site,
 * dev-webhooks.ts for a partner's webhook receiver (its answers are what a receiver says),
 * dynalite-transactions.ts for DynamoDB (its protocol's statuses, for the local run's store), not the service.
 */
const NOT_THE_SERVICE = [
  join('infra', 'local', 'demo-game.ts'),
  join('infra', 'local', 'dev-webhooks.ts'),
  join('infra', 'local', 'dynalite-transactions.ts'),
];

test('no production file but the error table sets an error status itself', () => {
  const literal = /\b(?:statusCode|status)\s*:\s*[45]\d\d\b|(?:jsonResponse|htmlResponse|writeHead)\(\s*[45]\d\d\b/;
  const offenders = ['shared', 'functions', 'infra']
    .flatMap(sources)
    .filter((file) => !file.endsWith(join('domain', 'errors.ts')) && !NOT_THE_SERVICE.some((exempt) => file.endsWith(exempt)))
    .filter((file) => literal.test(readFileSync(file, 'utf8')));
  expect(offenders).toEqual([]);
});
