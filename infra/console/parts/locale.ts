/**
 * The locale every number and date of the console is formatted in: the browser's, when it is a
 * language tag Intl accepts. A browser may report a POSIX locale instead: Chromium started under
 * `LANG=C.UTF-8` (a fresh Linux machine's default) says `en-US@posix`, which `Intl` refuses with
 * "Invalid language tag", so a bare `toLocaleString()` or `new Intl.NumberFormat(navigator.language)`
 * (uPlot does that when it loads) would throw and the page would draw nothing. Every Intl call in
 * the console takes its locale from {@link displayLocale}.
 */

/** Used when the browser reports nothing usable. */
export const FALLBACK_LOCALE = 'en-US';

/**
 * A language tag Intl accepts, from one the browser reported: itself when valid, else its POSIX
 * form made a tag (`en_US.UTF-8@posix` -> `en-US`), else undefined.
 */
export function validLocale(reported: string | undefined): string | undefined {
  if (!reported) return undefined;
  // POSIX: language[_territory][.codeset][@modifier]; the C and POSIX locales name no language.
  const candidates = [reported, reported.replace(/[.@].*$/, '').replace(/_/g, '-')];
  for (const candidate of candidates) {
    if (/^(c|posix)$/i.test(candidate)) return undefined;
    try {
      const [canonical] = Intl.getCanonicalLocales(candidate);
      if (canonical) return canonical;
    } catch {
      // not a language tag: the next form, if any
    }
  }
  return undefined;
}

/** The first valid tag of the browser's languages (`navigator.languages`, then `navigator.language`), else {@link FALLBACK_LOCALE}. */
export function chooseLocale(reported: readonly (string | undefined)[]): string {
  for (const each of reported) {
    const tag = validLocale(each);
    if (tag) return tag;
  }
  return FALLBACK_LOCALE;
}

let chosen: string | undefined;

/** The console's locale: the browser's first valid language tag (computed once). */
export function displayLocale(): string {
  if (chosen === undefined) {
    const nav = typeof navigator === 'undefined' ? undefined : navigator;
    chosen = chooseLocale([...(nav?.languages ?? []), nav?.language]);
  }
  return chosen;
}

/** A count in the console's locale ("10,000"). */
export function formatNumber(value: number): string {
  return value.toLocaleString(displayLocale());
}

/**
 * Make `navigator.language` read as {@link displayLocale} when the browser's own is no valid tag,
 * for a library that reads it itself (uPlot formats its axis numbers with
 * `new Intl.NumberFormat(navigator.language)`, evaluated when its module loads). A valid reported
 * language is left alone.
 */
export function settleNavigatorLanguage(): void {
  if (typeof navigator === 'undefined' || validLocale(navigator.language) === navigator.language) return;
  Object.defineProperty(navigator, 'language', { configurable: true, get: displayLocale });
}
