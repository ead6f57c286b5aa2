/**
 * The local identity provider's storage: in memory, one map per provider, entries dropped when they
 * expire. Sessions, interactions, codes and grants are lost when `npm start` stops, which a
 * development provider can afford (a browser signs in again; the access tokens are JWTs and stay
 * verifiable through the JWKS). It does what the library's own in-memory adapter does, minus its
 * start-up warning and its process-wide store shared by every provider instance (tests start many).
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  readonly payload: AdapterPayload;
  readonly expiresAt: number;
}

/** Models whose records name the grant they belong to (revoked together with it). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** An adapter factory for `oidc-provider`'s `adapter` option, all models sharing one store. */
export function memoryAdapter(): (model: string) => Adapter {
  const store = new Map<string, Entry>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = store.get(key);
    if (entry && entry.expiresAt <= Date.now()) store.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  const findBy = (field: string, value: string, prefix: string) => {
    for (const key of store.keys()) {
      const payload = key.startsWith(prefix) ? live(key) : undefined;
      if (payload?.[field] === value) return payload;
    }
    return undefined;
  };
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      upsert: async (id, payload, expiresIn) => {
        store.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
      },
      find: async (id) => live(key(id)),
      findByUid: async (uid) => findBy('uid', uid, `${model}:`),
      findByUserCode: async (userCode) => findBy('userCode', userCode, `${model}:`),
      consume: async (id) => {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        store.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, entry] of store) {
          if (GRANTABLE.has(k.slice(0, k.indexOf(':'))) && entry.payload.grantId === grantId) store.delete(k);
        }
      },
    };
  };
}
