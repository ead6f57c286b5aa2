/**
 * The admin console's pure helpers: how allow-lists are typed and shown (blank: every one; `none`:
 * none), and the Content-Security-Policy the front and the edge both send.
 */
import { describe, expect, test } from '@jest/globals';
import { consoleCsp } from '../../infra/console-build.js';
import { allowList, idsText, parseIds, shortValue } from '../../infra/console/parts/format.js';

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
