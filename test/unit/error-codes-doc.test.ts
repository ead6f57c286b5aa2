/**
 * docs/errors.md lists every code the service answers with, one row each, with the status THE error
 * table gives it (`shared/platform/errors.ts`), and nothing else: a partner programs against that page.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorTable } from '../../shared/platform/errors.js';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/errors.md', import.meta.url)), 'utf8');

/** The table rows of the page: code and status. */
const rows = [...DOC.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\| (.+?) +\| (.+?) +\|$/gm)].map((m) => ({
  code: m[1]!,
  status: Number(m[2]),
  meaning: m[3]!,
  action: m[4]!,
}));

describe('docs/errors.md', () => {
  test('lists every code of the error table once, with its status, and no other', () => {
    const table = Object.values(errorTable)
      .map(([status, code]) => ({ code, status }))
      .sort((a, b) => a.code.localeCompare(b.code));
    const listed = rows.map(({ code, status }) => ({ code, status })).sort((a, b) => a.code.localeCompare(b.code));
    expect(listed).toEqual(table);
  });

  test('every row says what the code means and what to do', () => {
    for (const row of rows) expect([row.code, row.meaning.length > 10, row.action.length > 10]).toEqual([row.code, true, true]);
  });

  test('codes are unique in the table (a client branches on them)', () => {
    const codes = Object.values(errorTable).map(([, code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
