/**
 * The admin console's pure helpers: how allow-lists are typed and shown (blank: every one; `none`:
 * none), the Content-Security-Policy the front and the edge both send, and when the console signs
 * in again (never in a loop, never while a dialog shows a raw key).
 */
import { describe, expect, test } from '@jest/globals';
import { consoleCsp } from '../../infra/console-build.js';
import { allowList, instantOf, idsText, parseIds, shortValue, toLocalInput } from '../../infra/console/parts/format.js';
import {
  afterUnauthorized,
  beforeCall,
  EXPIRY_MARGIN_MS,
  parseSignedInAt,
  RECENT_SIGN_IN_MS,
  type RenewalFacts,
} from '../../infra/console/renewal.js';

describe('the expiry field of the key form (minutes only)', () => {
  const expiresAt = '2026-12-01T10:20:30.456Z';

  test('left as shown, the key keeps its own expiry, seconds included (an edit of another field moves nothing)', () => {
    expect(toLocalInput(expiresAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    expect(instantOf(toLocalInput(expiresAt), expiresAt)).toBe(expiresAt);
    expect(instantOf('', null)).toBeNull();
  });

  test('changed, it is the minute typed; cleared, no expiry', () => {
    const typed = toLocalInput('2027-01-02T03:04:00.000Z');
    expect(instantOf(typed, expiresAt)).toBe('2027-01-02T03:04:00.000Z');
    expect(instantOf('', expiresAt)).toBeNull();
    expect(instantOf(typed, null)).toBe('2027-01-02T03:04:00.000Z');
  });
});

describe('allow-lists in the key form', () => {
  test('blank is every one (null), "none" is none, ids are comma- or space-separated', () => {
    expect(parseIds('')).toBeNull();
    expect(parseIds('   ')).toBeNull();
    expect(parseIds('none')).toEqual([]);
    expect(parseIds(' NONE ')).toEqual([]);
    expect(parseIds('101, 102')).toEqual([101, 102]);
    expect(parseIds('101 102,103')).toEqual([101, 102, 103]);
  });

  test('anything but positive whole numbers is refused with a message naming it', () => {
    for (const text of ['0', '-1', '1.5', 'abc', '101,,x']) expect(() => parseIds(text)).toThrow(/is not an id/);
  });

  test('the field and the table read back what was saved', () => {
    for (const ids of [null, [], [101, 102]]) expect(parseIds(idsText(ids))).toEqual(ids);
    expect(allowList(null)).toBe('all');
    expect(allowList([])).toBe('none');
    expect(allowList([1, 2])).toBe('1, 2');
  });

  test('audit values: strings as they are, the rest as JSON, null as a dash', () => {
    expect(shortValue(null)).toBe('—');
    expect(shortValue('x')).toBe('x');
    expect(shortValue(false)).toBe('false');
    expect(shortValue(['mcp:ai'])).toBe('["mcp:ai"]');
  });
});

test('the CSP: nothing inline, no third party but the identity provider, no framing', () => {
  const csp = consoleCsp(['https://idp.example.com', 'https://idp.example.com', 'https://auth.example.net']);
  expect(csp.split('; ')).toEqual([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self' https://idp.example.com https://auth.example.net",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    'form-action https://idp.example.com https://auth.example.net',
  ]);
  expect(csp).not.toMatch(/unsafe|\*/);
});

describe('signing in again', () => {
  const now = Date.parse('2026-11-24T20:00:00Z');
  const facts = (overrides: Partial<RenewalFacts>): RenewalFacts => ({
    now,
    expiresAt: now + 3_600_000,
    signedInAt: now - 10 * 60_000,
    dialogOpen: false,
    ...overrides,
  });

  test('a 401 soon after a sign-in is shown (no redirect loop); later it renews silently', () => {
    expect(RECENT_SIGN_IN_MS).toBe(60_000);
    expect(afterUnauthorized(facts({ signedInAt: now - 5_000 }))).toBe('report');
    expect(afterUnauthorized(facts({ signedInAt: now - RECENT_SIGN_IN_MS + 1 }))).toBe('report');
    expect(afterUnauthorized(facts({ signedInAt: now - RECENT_SIGN_IN_MS }))).toBe('renew');
    expect(afterUnauthorized(facts({}))).toBe('renew');
    expect(afterUnauthorized(facts({ signedInAt: undefined }))).toBe('renew');
    // A clock that moved back: the sign-in looks to come later than now; still no loop.
    expect(afterUnauthorized(facts({ signedInAt: now + 5_000 }))).toBe('report');
  });

  test('while a dialog is open the console never leaves the page: the call fails instead', () => {
    expect(afterUnauthorized(facts({ dialogOpen: true }))).toBe('fail');
    expect(afterUnauthorized(facts({ dialogOpen: true, signedInAt: now - 5_000 }))).toBe('fail');
    expect(beforeCall(facts({ dialogOpen: true, expiresAt: now - 1 }))).toBe('send');
  });

  test('renewal happens on the next call once the token has (nearly) expired, not before', () => {
    expect(beforeCall(facts({}))).toBe('send');
    expect(beforeCall(facts({ expiresAt: now + EXPIRY_MARGIN_MS + 1 }))).toBe('send');
    expect(beforeCall(facts({ expiresAt: now + EXPIRY_MARGIN_MS }))).toBe('renew');
    expect(beforeCall(facts({ expiresAt: now - 1 }))).toBe('renew');
  });

  test('the stored sign-in time is a timestamp or nothing', () => {
    expect(parseSignedInAt(null)).toBeUndefined();
    expect(parseSignedInAt('')).toBeUndefined();
    expect(parseSignedInAt('abc')).toBeUndefined();
    expect(parseSignedInAt(String(now))).toBe(now);
  });
});
