// Compact RS256 JSON Web Tokens on node:crypto. Signing runs on libuv's thread pool so a burst
// of sign-ins or refreshes uses every core; verification is synchronous and cheap.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { randomHex } from './ids.js';

const signAsync = promisify(sign);

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export type JwtClaims = Record<string, unknown> & { exp?: number; iat?: number };

export type VerifyResult =
  | { ok: true; claims: JwtClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

export function generateSigningKey(): { kid: string; privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    kid: `kid_${randomHex(16)}`,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function signingKeyFromPem(kid: string, privatePem: string): SigningKey {
  const privateKey = createPrivateKey(privatePem);
  return { kid, privateKey, publicKey: createPublicKey(privateKey) };
}

const encodeJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function signJwt(key: SigningKey, claims: JwtClaims): Promise<string> {
  const input = `${encodeJson({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${encodeJson(claims)}`;
  const signature = await signAsync('sha256', Buffer.from(input), key.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

/** Verifies signature (by `kid`) and expiry against `nowSeconds`. */
export function verifyJwt(token: string, publicKeys: ReadonlyMap<string, KeyObject>, nowSeconds: number): VerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: JwtClaims;
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (header.alg !== 'RS256' || typeof header.kid !== 'string') return { ok: false, reason: 'malformed' };
  if (typeof claims !== 'object' || claims === null) return { ok: false, reason: 'malformed' };
  const key = publicKeys.get(header.kid);
  if (!key) return { ok: false, reason: 'signature' };
  const valid = verify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    key,
    Buffer.from(signaturePart, 'base64url'),
  );
  if (!valid) return { ok: false, reason: 'signature' };
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/** The public half of a key as a JSON Web Key, for /.well-known/jwks.json. */
export function publicJwk(kid: string, publicKey: KeyObject): Record<string, unknown> {
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}
