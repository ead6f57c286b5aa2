/** The API of the signed-in admin, for every page (set once by the app). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from '../api';

/** The context holding the {@link Api}. */
export const ApiContext = createContext<Api | undefined>(undefined);

/** The signed-in admin's API. */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside the signed-in app');
  return api;
}
