/**
 * The console's locale: a browser may report a POSIX locale (Chromium under
 * `LANG=C.UTF-8` says `en-US@posix`), which Intl refuses; every number and date the console
 * formats uses a valid tag instead (infra/console/parts/locale.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { chooseLocale, FALLBACK_LOCALE, validLocale } from '../../infra/console/parts/locale.js';

describe('the console locale', () => {
  test('a POSIX locale the browser reports becomes its language tag; Intl accepts it', () => {
    expect(() => new Intl.NumberFormat('en-US@posix')).toThrow();
    expect(validLocale('en-US@posix')).toBe('en-US');
    expect(validLocale('de_DE.UTF-8')).toBe('de-DE');
    expect(chooseLocale(['en-US@posix'])).toBe('en-US');
    expect(new Intl.NumberFormat(chooseLocale(['en-US@posix'])).format(10_000)).toBe('10,000');
  });

  test('a valid tag is kept; the first valid one of the list wins', () => {
    expect(validLocale('fr-CA')).toBe('fr-CA');
    expect(chooseLocale(['@@', 'C.UTF-8', 'pt-BR', 'en-GB'])).toBe('pt-BR');
  });

  test('nothing usable (C, POSIX, garbage, nothing): the fallback', () => {
    for (const reported of [[], [undefined], ['C'], ['C.UTF-8'], ['POSIX'], ['@posix'], ['not a locale!']])
      expect(chooseLocale(reported)).toBe(FALLBACK_LOCALE);
  });
});
