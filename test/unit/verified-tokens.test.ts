// The verified-token cache: a good token is answered from the cache until its exp, while its key
// stands and its session lives; forged tokens never enter; the least recently used goes first.
import { describe, expect, it } from 'vitest';
import { generateSigningKey, signJwt, signingKeyFromPem } from '../../src/core/jwt.js';
import { createVerifiedTokenCache } from '../../src/core/verified-tokens.js';

const key = signingKeyFromPem('kid_a', generateSigningKey().privatePem);
const other = signingKeyFromPem('kid_b', generateSigningKey().privatePem);
const keys = new Map([[key.kid, key.publicKey]]);

const tokenOf = (sub: string, sid = `s_${sub}`, exp = 200) => signJwt(key, { sub, sid, exp });

/** The claims object a verification returns (its identity tells a cache hit from a fresh verify). */
function claimsOf(cache: ReturnType<typeof createVerifiedTokenCache>, token: string, now = 100) {
  const result = cache.verify(token, keys, now);
  if (!result.ok) throw new Error(`not verified: ${result.reason}`);
  return result.claims;
}

describe('verified-token cache', () => {
  it('answers a token from the cache until its exp, then refuses it', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10 });
    const token = await tokenOf('u1');
    const first = claimsOf(cache, token, 100);
    expect(Object.isFrozen(first)).toBe(true);
    expect(claimsOf(cache, token, 199)).toBe(first);
    expect(cache.verify(token, keys, 200)).toEqual({ ok: false, reason: 'expired' });
    expect(cache.size).toBe(0);
  });

  it('forgets a token whose key was retired or replaced under its kid', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10 });
    const token = await tokenOf('u1');
    claimsOf(cache, token);
    expect(cache.verify(token, new Map(), 100)).toEqual({ ok: false, reason: 'signature' });
    expect(cache.size).toBe(0);
    claimsOf(cache, token);
    expect(cache.verify(token, new Map([[key.kid, other.publicKey]]), 100)).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it('never lets a forged or edited token in', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10 });
    const token = await tokenOf('u1');
    const [h, , s] = token.split('.');
    const edited = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', sid: 'x', exp: 200 })).toString('base64url')}.${s}`;
    const foreign = await signJwt({ ...other, kid: key.kid }, { sub: 'u1', sid: 's', exp: 200 });
    for (const bad of [edited, foreign]) {
      expect(cache.verify(bad, keys, 100)).toEqual({ ok: false, reason: 'signature' });
      expect(cache.verify(bad, keys, 100)).toEqual({ ok: false, reason: 'signature' });
    }
    expect(cache.size).toBe(0);
    // The good token verified first does not make its edited twin pass later either.
    claimsOf(cache, token);
    expect(cache.verify(edited, keys, 100).ok).toBe(false);
  });

  it('drops every token of a session the moment it ends, and only those', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10 });
    const [a1, a2, b] = await Promise.all([tokenOf('u1', 's_a'), tokenOf('u2', 's_a'), tokenOf('u3', 's_b')]);
    const kept = claimsOf(cache, b!);
    claimsOf(cache, a1!);
    claimsOf(cache, a2!);
    expect(cache.size).toBe(3);
    cache.forgetSession('s_a');
    expect(cache.size).toBe(1);
    expect(claimsOf(cache, b!)).toBe(kept);
    cache.forgetSession('s_unknown');
    expect(cache.size).toBe(1);
  });

  it('keeps at most maxEntries, forgetting the least recently used', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 2 });
    const [first, second, third] = await Promise.all([tokenOf('u1'), tokenOf('u2'), tokenOf('u3')]);
    const firstClaims = claimsOf(cache, first!);
    const secondClaims = claimsOf(cache, second!);
    // first used again: second is now the least recently used, and the third token evicts it.
    expect(claimsOf(cache, first!)).toBe(firstClaims);
    claimsOf(cache, third!);
    expect(cache.size).toBe(2);
    expect(claimsOf(cache, first!)).toBe(firstClaims);
    const again = claimsOf(cache, second!);
    expect(again).not.toBe(secondClaims);
    expect(again).toEqual(secondClaims);
    // An evicted token leaves its session's index too: ending it later finds nothing to drop.
    cache.forgetSession('s_u3');
    expect(cache.size).toBe(2);
  });

  it('with size 0 verifies every call and keeps nothing', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 0 });
    const token = await tokenOf('u1');
    expect(claimsOf(cache, token)).not.toBe(claimsOf(cache, token));
    expect(cache.size).toBe(0);
  });

  it('applies the maximum lifetime before anything is cached', async () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10, maxLifetimeSeconds: 900 });
    const ok = await signJwt(key, { sub: 'u', sid: 's', iat: 100, exp: 1000 });
    const noIat = await signJwt(key, { sub: 'u', sid: 's', exp: 1000 });
    expect(cache.verify(ok, keys, 150).ok).toBe(true);
    expect(cache.verify(noIat, keys, 150)).toEqual({ ok: false, reason: 'lifetime' });
    expect(cache.size).toBe(1);
  });
});
