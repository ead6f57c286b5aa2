import { describe, expect, test } from '@jest/globals';
import { statusAt } from '../../shared/sessions/model.js';

const EXPIRES = '2026-03-04T05:06:07.890Z';
const at = Date.parse(EXPIRES);

describe('statusAt', () => {
  test('an active token is active until its expires_at', () => {
    expect(statusAt({ status: 'active', expires_at: EXPIRES }, at - 1)).toBe('active');
  });
  test('an active token reads as expired from its expires_at on', () => {
    expect(statusAt({ status: 'active', expires_at: EXPIRES }, at)).toBe('expired');
    expect(statusAt({ status: 'active', expires_at: EXPIRES }, at + 86_400_000)).toBe('expired');
  });
  test.each(['consumed', 'revoked'] as const)('a %s token keeps its status, before and after expiry', (status) => {
    expect(statusAt({ status, expires_at: EXPIRES }, at - 1)).toBe(status);
    expect(statusAt({ status, expires_at: EXPIRES }, at + 1)).toBe(status);
  });
});
