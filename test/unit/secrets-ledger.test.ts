/**
 * The secrets-hygiene check every integration stack runs when it stops (`test/support/secrets.ts`)
 * must itself catch leaks: a check that could never fail would prove nothing.
 */
import { describe, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretLedger } from '../support/secrets.js';

const KEY = `dpk_${'0123456789'.repeat(4)}`;
const TOKEN = '3f2b8c1e-9a4d-4e7f-8b21-6c0d5e9f1a2b';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lLWFkbWluIn0.c2lnbmF0dXJlLW9mLXRoZS1kZXYtaXNzdWVyLWtleQ';

function ledger(): SecretLedger {
  const l = new SecretLedger();
  l.noteRequest('/api/org-api-keys?action=validate-session&token=' + TOKEN, {
    headers: { 'x-api-key': KEY, authorization: `Bearer ${JWT}` },
  });
  return l;
}

describe('SecretLedger', () => {
  test('secrets are collected from requests and answers (also JSON inside strings)', () => {
    const l = new SecretLedger();
    l.noteText(JSON.stringify({ data: { key: KEY } }));
    l.noteText(JSON.stringify({ content: [{ text: JSON.stringify({ token: TOKEN }) }] }));
    expect(l.size).toBe(2);
  });

  test('prefixes may be logged; anything more of a key, token or JWT is a leak', () => {
    const l = ledger();
    const clean = [`{"level":"INFO","key_prefix":"${KEY.slice(0, 8)}","token_prefix":"${TOKEN.slice(0, 8)}"}\n`];
    expect(l.checkLogs(clean)).toEqual({ linesScanned: 1, leaks: [] });
    expect(l.checkLogs([`{"msg":"${KEY.slice(4)}"}\n`]).leaks).toEqual([{ kind: 'api key', where: 'logs', prefix: KEY.slice(0, 8) }]);
    expect(l.checkLogs([`token ${TOKEN.toUpperCase()}\n`]).leaks.map((x) => x.kind)).toEqual(['token']);
    expect(l.checkLogs([`sig ${JWT.split('.')[2]}\n`]).leaks.map((x) => x.kind)).toEqual(['jwt']);
  });

  test('the data folder may hold a raw key only in the allowed file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    try {
      mkdirSync(join(dir, 'db'));
      writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ api_key: KEY }));
      writeFileSync(join(dir, 'db', '000001.log'), Buffer.from(`\u0000\u0001item key_hash=abc prefix=${KEY.slice(0, 8)}`));
      const allowed = { file: join(dir, 'credentials.json'), rawKey: KEY };
      expect(ledger().checkFolder(dir, allowed)).toEqual({ filesScanned: 2, leaks: [] });
      writeFileSync(join(dir, 'db', '000002.log'), Buffer.from(`\u0000${KEY.slice(4)}\u0000`));
      writeFileSync(join(dir, 'db', '000003.log'), Buffer.from(`x dpk_${'f'.repeat(40)} y`));
      expect(
        ledger()
          .checkFolder(dir, allowed)
          .leaks.map((x) => `${x.kind} in ${x.where}`)
          .sort(),
      ).toEqual(['api key (hex) in 000002.log', 'api key in 000003.log']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
