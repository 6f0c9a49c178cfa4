// RS256 tokens: signature, key id, expiry and malformed input.
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, publicJwk, signJwt, signingKeyFromPem, verifyJwt } from '../../src/core/jwt.js';

const pem = generateSigningKey();
const key = signingKeyFromPem(pem.kid, pem.privatePem);
const keys = new Map([[key.kid, key.publicKey]]);
const other = signingKeyFromPem('kid_other', generateSigningKey().privatePem);

describe('jwt', () => {
  it('verifies its own tokens until they expire', async () => {
    const token = await signJwt(key, { sub: 'u1', iat: 100, exp: 200 });
    expect(verifyJwt(token, keys, 150)).toEqual({ ok: true, claims: { sub: 'u1', iat: 100, exp: 200 } });
    expect(verifyJwt(token, keys, 200)).toEqual({ ok: false, reason: 'expired' });
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

  it('rejects alg none and HS256 headers', () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const alg of ['none', 'HS256']) {
      const token = `${enc({ alg, kid: key.kid })}.${enc({ sub: 'u', exp: 999 })}.`;
      expect(verifyJwt(token, keys, 0).ok).toBe(false);
    }
  });

  it('publishes the public key as a JWK that node can import', () => {
    const jwk = publicJwk(key.kid, key.publicKey);
    expect(jwk).toMatchObject({ kty: 'RSA', kid: key.kid, alg: 'RS256', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    expect(createPublicKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyType).toBe('rsa');
  });
});
