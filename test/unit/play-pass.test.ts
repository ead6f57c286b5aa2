import { describe, expect, test } from '@jest/globals';
import { PlayPassSigner, type PlayPass } from '../../shared/play/play-pass.js';
import { playCookie, playCookieName } from '../../shared/play/play-requests.js';

const secret = 'a'.repeat(32);
const signer = new PlayPassSigner(() => secret);
const now = Date.parse('2026-11-23T10:00:00.000Z');
const pass: PlayPass = { sid: 42, kind: 'game', id: 101, exp: now / 1000 + 3600 };

describe('PlayPassSigner', () => {
  test('reads back what it signed, until it expires', () => {
    const value = signer.sign(pass);
    expect(value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(signer.read(value, now)).toEqual(pass);
    expect(signer.read(value, now + 3600_000)).toBeUndefined();
  });

  test('refuses another secret’s signature, an altered payload, and junk', () => {
    const value = signer.sign(pass);
    expect(new PlayPassSigner(() => 'b'.repeat(32)).read(value, now)).toBeUndefined();
    const [, mac] = value.split('.');
    const other = signer.sign({ ...pass, id: 102 }).split('.')[0];
    expect(signer.read(`${other}.${mac}`, now)).toBeUndefined();
    for (const junk of [undefined, '', '.', 'abc', `${value}.x`, `${value.split('.')[0]}.`]) expect(signer.read(junk, now)).toBeUndefined();
  });

  test('refuses a well-signed payload of the wrong shape', () => {
    const payload = Buffer.from(JSON.stringify({ sid: 'x', kind: 'game', id: 1, exp: 9e9 })).toString('base64url');
    const forged = signer.sign(pass).replace(/^[^.]+/, payload);
    expect(signer.read(forged, now)).toBeUndefined();
  });

  test('needs the secret only when a pass is signed or checked', () => {
    const unset = new PlayPassSigner(() => {
      throw new Error('PLAY_COOKIE_SECRET is not set');
    });
    expect(unset.read(undefined, now)).toBeUndefined();
    expect(() => unset.sign(pass)).toThrow('PLAY_COOKIE_SECRET is not set');
  });
});

describe('play cookie', () => {
  const issued = { pass, value: 'v.m', maxAgeSeconds: 14_400 };

  test('over http: Lax, not Secure, no prefix', () => {
    expect(playCookie(issued, { secure: false, embed: false })).toBe('play_game_101=v.m; Path=/; Max-Age=14400; HttpOnly; SameSite=Lax');
    expect(playCookie(issued, { secure: false, embed: true })).toContain('SameSite=Lax');
  });

  test('over https: Secure and __Host- prefixed; the embed shape works in a partner’s iframe (None, partitioned)', () => {
    expect(playCookie(issued, { secure: true, embed: false })).toBe(
      '__Host-play_game_101=v.m; Path=/; Max-Age=14400; HttpOnly; Secure; SameSite=Lax',
    );
    expect(playCookie(issued, { secure: true, embed: true })).toBe(
      '__Host-play_game_101=v.m; Path=/; Max-Age=14400; HttpOnly; Secure; SameSite=None; Partitioned',
    );
    expect(playCookieName('stream', 7, true)).toBe('__Host-play_stream_7');
  });
});
