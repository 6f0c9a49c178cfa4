// Compact JSON Web Tokens on node:crypto: ES256 for keys made now, RS256 for the RSA keys made
// before (the algorithm follows the key, and the JWKS announces it). ES256 signs on the event loop,
// RS256 on libuv's thread pool; verification is synchronous (core/verified-tokens.ts caches its
// verdicts).
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
  type SignKeyObjectInput,
} from 'node:crypto';
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
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'lifetime' };

/** How far ahead of this server's clock a token's `iat` may be (another server's clock drift). */
const IAT_SKEW_SECONDS = 60;

export type JwtAlgorithm = 'ES256' | 'RS256';

/** The algorithm a key signs with: ES256 for a P-256 key, RS256 for an RSA key. */
export function algorithmOf(key: KeyObject): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`Unsupported access-token signing key type: ${key.asymmetricKeyType}`);
}

/** JWS signatures of ES256 are r‖s (IEEE P1363), not DER. */
const withEncoding = (key: KeyObject, algorithm: JwtAlgorithm): SignKeyObjectInput =>
  algorithm === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : { key };

/** A new signing key: P-256 (ES256), whose signature costs a twentieth of an RSA-2048 one. */
export function generateSigningKey(): { kid: string; privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    kid: `kid_${randomHex(16)}`,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function signingKeyFromPem(kid: string, privatePem: string): SigningKey {
  const privateKey = createPrivateKey(privatePem);
  algorithmOf(privateKey);
  return { kid, privateKey, publicKey: createPublicKey(privateKey) };
}

const encodeJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** What signing with one key needs every time, worked out once: its algorithm, header segment and key input. */
interface Signer {
  algorithm: JwtAlgorithm;
  header: string;
  input: SignKeyObjectInput;
}

const signers = new WeakMap<SigningKey, Signer>();

function signerOf(key: SigningKey): Signer {
  let signer = signers.get(key);
  if (!signer) {
    const algorithm = algorithmOf(key.privateKey);
    const header = encodeJson({ alg: algorithm, typ: 'JWT', kid: key.kid });
    signer = { algorithm, header, input: withEncoding(key.privateKey, algorithm) };
    signers.set(key, signer);
  }
  return signer;
}

/**
 * ES256 signs on the event loop: 33 µs of CPU, where the same signature through the thread pool
 * costs 61 µs (bench/probes/token-cost.ts), and under load the main thread also waits for the pool's
 * hand-off (refresh: 71% of the limit before, a median of 83% after). RS256 (335 µs) stays on the pool.
 */
export async function signJwt(key: SigningKey, claims: JwtClaims): Promise<string> {
  const { algorithm, header, input: signingKey } = signerOf(key);
  const input = `${header}.${encodeJson(claims)}`;
  const data = Buffer.from(input);
  const signature =
    algorithm === 'ES256' ? sign('sha256', data, signingKey) : await signAsync('sha256', data, signingKey);
  return `${input}.${signature.toString('base64url')}`;
}

/** The verdict, and on success the key that verified the token and its kid (for the verified-token cache). */
export type Checked = { result: VerifyResult; key?: KeyObject; kid?: string };

/**
 * With a maximum lifetime, a token must carry `iat` (not in the future) and live no longer than
 * that: a leaked signing key cannot mint a token that outlives the key's rotation by years.
 */
function lifetimeAllowed(claims: JwtClaims, nowSeconds: number, maxLifetimeSeconds: number | undefined): boolean {
  if (maxLifetimeSeconds === undefined) return true;
  const { iat, exp } = claims;
  return (
    typeof iat === 'number' &&
    typeof exp === 'number' &&
    iat <= nowSeconds + IAT_SKEW_SECONDS &&
    exp - iat <= maxLifetimeSeconds
  );
}

/** Signature (by `kid`, with the algorithm of that key), expiry against `nowSeconds`, and lifetime. */
export function checkJwt(
  token: string,
  publicKeys: ReadonlyMap<string, KeyObject>,
  nowSeconds: number,
  maxLifetimeSeconds?: number,
): Checked {
  const parts = token.split('.');
  if (parts.length !== 3) return { result: { ok: false, reason: 'malformed' } };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: JwtClaims;
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
  } catch {
    return { result: { ok: false, reason: 'malformed' } };
  }
  if ((header.alg !== 'RS256' && header.alg !== 'ES256') || typeof header.kid !== 'string')
    return { result: { ok: false, reason: 'malformed' } };
  if (typeof claims !== 'object' || claims === null) return { result: { ok: false, reason: 'malformed' } };
  const key = publicKeys.get(header.kid);
  // The key decides the algorithm: a header naming another one is not this key's signature.
  if (!key || algorithmOf(key) !== header.alg) return { result: { ok: false, reason: 'signature' } };
  const valid = verify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    withEncoding(key, header.alg),
    Buffer.from(signaturePart, 'base64url'),
  );
  if (!valid) return { result: { ok: false, reason: 'signature' } };
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { result: { ok: false, reason: 'expired' } };
  if (!lifetimeAllowed(claims, nowSeconds, maxLifetimeSeconds)) return { result: { ok: false, reason: 'lifetime' } };
  return { result: { ok: true, claims }, key, kid: header.kid };
}

/** Verifies signature (by `kid`), expiry against `nowSeconds` and, when given, the maximum lifetime. */
export function verifyJwt(
  token: string,
  publicKeys: ReadonlyMap<string, KeyObject>,
  nowSeconds: number,
  maxLifetimeSeconds?: number,
): VerifyResult {
  return checkJwt(token, publicKeys, nowSeconds, maxLifetimeSeconds).result;
}

/** The public half of a key as a JSON Web Key, for /.well-known/jwks.json. */
export function publicJwk(kid: string, publicKey: KeyObject): Record<string, unknown> {
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: algorithmOf(publicKey), use: 'sig' };
}
