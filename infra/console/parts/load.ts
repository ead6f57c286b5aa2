/** Loading a page's data: the answer, the refusal's message, and a way to load again after a change. */
import { useCallback, useEffect, useState } from 'preact/hooks';

/** What a page shows while, and after, it loads. */
export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'failed'; readonly message: string; readonly status: number | undefined }
  | { readonly state: 'ready'; readonly data: T };

/** The message and status of an error from the API (or anything else that failed). */
export function failure(error: unknown): { message: string; status: number | undefined } {
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : undefined;
  return { message: error instanceof Error ? error.message : String(error), status };
}

/** Run `load` now and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setLoaded({ state: 'ready', data }),
      (error: unknown) => current && setLoaded({ state: 'failed', ...failure(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return [loaded, reload];
}
