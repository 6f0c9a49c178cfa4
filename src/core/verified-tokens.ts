// The verified-token cache: access tokens whose signature, expiry and lifetime were checked, kept by
// the token string (least recently used forgotten first) so a client's next calls cost a lookup, not
// an ES256 verify (~110 µs). An entry holds until its token's `exp` (on the injected clock), while
// the key that verified it still stands under its kid (a retired or replaced key ends it), and until
// its session ends (forgetSession, fed by the revocations every server hears). Only tokens that
// passed every check enter; PostgREST's JWT cache does the same.
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { checkJwt, type JwtClaims, type VerifyResult } from './jwt.js';

export interface VerifiedTokenCache {
  /** verifyJwt, answered from the cache when the token was verified before and still holds. */
  verify(token: string, publicKeys: ReadonlyMap<string, KeyObject>, nowSeconds: number): VerifyResult;
  /** Forgets at once every cached token of an ended session. */
  forgetSession(sessionId: string): void;
  /** Tokens held now. */
  readonly size: number;
}

interface Remembered {
  claims: JwtClaims;
  exp: number;
  kid: string;
  key: KeyObject;
  sid: string | undefined;
}

export interface VerifiedTokenCacheOptions {
  /** Tokens kept at most; 0 keeps none (every call verifies its signature). */
  maxEntries: number;
  /** Tokens without `iat`, or living longer than this, are refused (core/jwt.ts). */
  maxLifetimeSeconds?: number;
}

export function createVerifiedTokenCache({
  maxEntries,
  maxLifetimeSeconds,
}: VerifiedTokenCacheOptions): VerifiedTokenCache {
  const check = (token: string, publicKeys: ReadonlyMap<string, KeyObject>, nowSeconds: number) =>
    checkJwt(token, publicKeys, nowSeconds, maxLifetimeSeconds);
  if (maxEntries === 0) {
    return { verify: (...args) => check(...args).result, forgetSession: () => {}, size: 0 };
  }
  // Session id → its cached tokens, so a revocation drops them without scanning the cache.
  const bySession = new Map<string, Set<string>>();
  const unindex = (token: string, sid: string | undefined) => {
    if (sid === undefined) return;
    const tokens = bySession.get(sid);
    tokens?.delete(token);
    if (tokens?.size === 0) bySession.delete(sid);
  };
  const cache = new LRUCache<string, Remembered>({
    max: maxEntries,
    // Evicted, expired or forgotten: out of its session's index too.
    dispose: (entry, token) => unindex(token, entry.sid),
  });

  return {
    verify(token, publicKeys, nowSeconds) {
      const hit = cache.get(token);
      if (hit) {
        if (hit.exp > nowSeconds && publicKeys.get(hit.kid) === hit.key) return { ok: true, claims: hit.claims };
        cache.delete(token);
      }
      const { result, key, kid } = check(token, publicKeys, nowSeconds);
      if (!result.ok || !key || !kid) return result;
      // Callers share the claims of a cached token: frozen, so none can change them for the others.
      const claims = Object.freeze(result.claims);
      const sid = typeof claims.sid === 'string' ? claims.sid : undefined;
      cache.set(token, { claims, exp: claims.exp as number, kid, key, sid });
      if (sid !== undefined) {
        const tokens = bySession.get(sid);
        if (tokens) tokens.add(token);
        else bySession.set(sid, new Set([token]));
      }
      return { ok: true, claims };
    },
    forgetSession(sessionId) {
      const tokens = bySession.get(sessionId);
      if (!tokens) return;
      for (const token of [...tokens]) cache.delete(token);
      bySession.delete(sessionId);
    },
    get size() {
      return cache.size;
    },
  };
}
