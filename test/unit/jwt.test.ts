// Access tokens: ES256 for new keys, RS256 for RSA keys made before; signature, key id, expiry,
// malformed input and the maximum lifetime (the verified-token cache: verified-tokens.test.ts).
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, publicJwk, signJwt, signingKeyFromPem, verifyJwt } from '../../src/core/jwt.js';

const pem = generateSigningKey();
const key = signingKeyFromPem(pem.kid, pem.privatePem);
const keys = new Map([[key.kid, key.publicKey]]);
const other = signingKeyFromPem('kid_other', generateSigningKey().privatePem);
/** A key as servers made them before ES256: RSA-2048. */
const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const rsaKey = signingKeyFromPem('kid_rsa', rsaPem);

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));

describe('jwt', () => {
  it('signs new keys ES256 and verifies its own tokens until they expire', async () => {
    const token = await signJwt(key, { sub: 'u1', iat: 100, exp: 200 });
    expect(headerOf(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: key.kid });
    expect(verifyJwt(token, keys, 150)).toEqual({ ok: true, claims: { sub: 'u1', iat: 100, exp: 200 } });
    expect(verifyJwt(token, keys, 200)).toEqual({ ok: false, reason: 'expired' });
  });

  it('keeps signing and verifying RS256 with an RSA key made before', async () => {
    const token = await signJwt(rsaKey, { sub: 'u1', exp: 200 });
    expect(headerOf(token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid_rsa' });
    const both = new Map([...keys, [rsaKey.kid, rsaKey.publicKey]]);
    expect(verifyJwt(token, both, 150)).toEqual({ ok: true, claims: { sub: 'u1', exp: 200 } });
    expect(verifyJwt(await signJwt(key, { sub: 'u2', exp: 200 }), both, 150).ok).toBe(true);
  });

  it.each([
    ['not a token', 'malformed'],
    ['a.b', 'malformed'],
    ['a.b.c', 'malformed'],
  ])('rejects %s', (token, reason) => {
    expect(verifyJwt(token, keys, 0)).toEqual({ ok: false, reason });
  });

  it('rejects a token signed by another key, or with an edited payload', async () => {
    const foreign = await signJwt({ ...other, kid: key.kid }, { sub: 'u1', exp: 999 });
    expect(verifyJwt(foreign, keys, 0)).toEqual({ ok: false, reason: 'signature' });
    const [h, , s] = (await signJwt(key, { sub: 'u1', exp: 999 })).split('.');
    const edited = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', exp: 999 })).toString('base64url')}.${s}`;
    expect(verifyJwt(edited, keys, 0)).toEqual({ ok: false, reason: 'signature' });
  });

  it("rejects alg none, HS256, and a header naming another algorithm than the key's", async () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const alg of ['none', 'HS256']) {
      const token = `${enc({ alg, kid: key.kid })}.${enc({ sub: 'u', exp: 999 })}.`;
      expect(verifyJwt(token, keys, 0).ok).toBe(false);
    }
    const [, payload, signature] = (await signJwt(key, { sub: 'u', exp: 999 })).split('.');
    const relabelled = `${enc({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${payload}.${signature}`;
    expect(verifyJwt(relabelled, keys, 0)).toEqual({ ok: false, reason: 'signature' });
  });

  it('publishes the public keys as JWKs that node can import, with their algorithm', () => {
    const jwk = publicJwk(key.kid, key.publicKey);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', kid: key.kid, alg: 'ES256', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    expect(createPublicKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyType).toBe('ec');
    expect(publicJwk(rsaKey.kid, rsaKey.publicKey)).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
  });
});

describe('maximum lifetime', () => {
  it('refuses tokens living longer than the maximum, without iat, or issued in the future', async () => {
    const ok = await signJwt(key, { sub: 'u', iat: 100, exp: 1000 });
    expect(verifyJwt(ok, keys, 150, 900)).toEqual({ ok: true, claims: { sub: 'u', iat: 100, exp: 1000 } });
    expect(verifyJwt(ok, keys, 150, 899)).toEqual({ ok: false, reason: 'lifetime' });
    const noIat = await signJwt(key, { sub: 'u', exp: 1000 });
    expect(verifyJwt(noIat, keys, 150, 900)).toEqual({ ok: false, reason: 'lifetime' });
    const future = await signJwt(key, { sub: 'u', iat: 500, exp: 1000 });
    expect(verifyJwt(future, keys, 150, 900)).toEqual({ ok: false, reason: 'lifetime' });
    // A minute of clock drift between servers is allowed.
    expect(verifyJwt(future, keys, 440, 900).ok).toBe(true);
  });
});
