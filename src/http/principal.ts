// Who is calling: resolves the request's credential (API key, anon key or access token) into a
// principal, and enforces each route's declared access level before its body is even read.
import type { KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { epochSeconds } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { sha256 } from '../core/ids.js';
import { createJwtVerifier } from '../core/jwt.js';
import type { Deps } from '../deps.js';

export type Principal =
  | { kind: 'anon' }
  | { kind: 'user'; userId: string; email: string; sessionId: string }
  | { kind: 'admin'; subject: string; via: 'token'; sessionId: string }
  | { kind: 'admin'; subject: 'api-key'; via: 'apiKey' };

/**
 * public: anyone; client: any valid credential; token: an access token (user or admin) only;
 * admin: an admin access token or the API key.
 */
export type AccessLevel = 'public' | 'client' | 'token' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessLevel;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const API_KEY = /^ik_[0-9a-f]{64}$/;
const ANON_KEY = /^anon_[0-9a-f]{64}$/;

const JWT_PARTS = /^([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Presented as an access token: three base64url parts (the signature may be empty, as with alg
 * "none") whose first part is a JSON header. Verification decides whether it is a good one.
 */
function isJwtShaped(credential: string): boolean {
  const header = JWT_PARTS.exec(credential)?.[1];
  if (header === undefined) return false;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded);
  } catch {
    return false;
  }
}

const unauthorized = (message = 'Missing or invalid credentials.') =>
  new AppError('UNAUTHORIZED', message, {
    nextActions: 'Send a valid access token, anon key or API key in the Authorization header.',
  });

/**
 * An access token that fails verification (expired, forged, revoked): AUTH_UNAUTHORIZED, the code
 * on which the official client refreshes its session and retries (api-contract Part A item 14).
 */
const rejectedAccessToken = (message: string) =>
  new AppError('AUTH_UNAUTHORIZED', message, {
    nextActions: 'Refresh the session (POST /api/auth/refresh) and retry with the new access token, or sign in again.',
  });

/** Sessions that ended while their access tokens may live on (fed by NOTIFY on every server). */
export interface EndedSessions {
  has(sessionId: string): boolean;
}

const noEndedSessions: EndedSessions = { has: () => false };

/** What a credential is checked against: the platform keys the secrets module loads and rotates. */
export interface AcceptedKeys {
  /** SHA-256 (hex) of every accepted API key → when it stops working (epoch ms; null: never). */
  apiKeyHashes: Map<string, number | null>;
  anonKeyHashes: Map<string, number | null>;
  /** Public keys that verify access tokens, by key id. */
  publicKeys: Map<string, KeyObject>;
}

/**
 * Resolves one credential (API key, anon key or access token, as sent after "Bearer ") into a
 * principal; throws 401 on an unknown key, a bad or expired token, or an ended session. The
 * realtime handshake uses it directly.
 */
const MAX_REMEMBERED_KEYS = 64;

export function createCredentialResolver(
  deps: Pick<Deps, 'clock'> & { keys: AcceptedKeys },
  ended: EndedSessions = noEndedSessions,
) {
  // The hashes of keys once accepted, so the anon key every browser request carries is hashed
  // once, not per request. Only accepted keys are kept (a handful), so unknown ones cannot fill it;
  // expiry is still read from the accepted set each time, so a rotation takes effect at once.
  const acceptedHashes = new Map<string, string>();

  /** A key is known until its expiry (a rotated key's grace period); null never expires. */
  const isKnown = (hashes: Map<string, number | null>, key: string) => {
    const hash = acceptedHashes.get(key) ?? sha256(key).toString('hex');
    const expiresAt = hashes.get(hash);
    const known = expiresAt === null || (expiresAt !== undefined && expiresAt > deps.clock.now().getTime());
    if (known && acceptedHashes.size < MAX_REMEMBERED_KEYS) acceptedHashes.set(key, hash);
    return known;
  };

  const verifyJwt = createJwtVerifier();

  return function resolveCredential(credential: string): Principal {
    if (API_KEY.test(credential)) {
      if (!isKnown(deps.keys.apiKeyHashes, credential)) throw unauthorized('Invalid API key.');
      return { kind: 'admin', subject: 'api-key', via: 'apiKey' };
    }
    if (ANON_KEY.test(credential)) {
      if (!isKnown(deps.keys.anonKeyHashes, credential)) throw unauthorized('Invalid anon key.');
      return { kind: 'anon' };
    }
    const result = verifyJwt(credential, deps.keys.publicKeys, epochSeconds(deps.clock.now()));
    if (!result.ok) {
      // Only something presented as an access token gets the code the client refreshes on.
      if (!isJwtShaped(credential)) throw unauthorized('Invalid access token.');
      throw rejectedAccessToken(
        result.reason === 'expired' ? 'The access token has expired.' : 'Invalid access token.',
      );
    }
    const { sub, role, sid, email } = result.claims;
    if (typeof sub !== 'string' || typeof sid !== 'string') throw rejectedAccessToken('Invalid access token.');
    if (ended.has(sid)) throw rejectedAccessToken('The session of this access token has ended.');
    if (role === 'project_admin') return { kind: 'admin', subject: sub, via: 'token', sessionId: sid };
    if (role === 'authenticated' && typeof email === 'string') {
      return { kind: 'user', userId: sub, email, sessionId: sid };
    }
    throw rejectedAccessToken('Invalid access token.');
  };
}

export function createPrincipalResolver(
  deps: Pick<Deps, 'clock'> & { keys: AcceptedKeys },
  ended: EndedSessions = noEndedSessions,
) {
  const resolveCredential = createCredentialResolver(deps, ended);

  /** The request's principal; null without any credential; throws on an invalid one. */
  return function resolvePrincipal(request: FastifyRequest): Principal | null {
    const header = request.headers.authorization;
    const apiKeyHeader = request.headers['x-api-key'];
    if (typeof header === 'string' && header.length > 0) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1]) throw unauthorized('The Authorization header must be "Bearer <credential>".');
      return resolveCredential(match[1]);
    }
    if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) {
      if (!API_KEY.test(apiKeyHeader)) throw unauthorized('Invalid API key.');
      return resolveCredential(apiKeyHeader);
    }
    return null;
  };
}

function enforce(level: AccessLevel, principal: Principal | null): void {
  if (level === 'public') return;
  if (principal === null) throw unauthorized();
  if (level === 'client') return;
  if (level === 'token') {
    if (principal.kind === 'anon' || (principal.kind === 'admin' && principal.via === 'apiKey')) {
      throw unauthorized('This endpoint needs an access token.');
    }
    return;
  }
  if (principal.kind !== 'admin') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', undefined, {
      nextActions: 'Sign in as the project admin or use the API key.',
    });
  }
}

/** Resolves the principal on every request and checks the route's `config.access`. */
export function registerAccessControl(
  app: FastifyInstance,
  deps: Pick<Deps, 'clock'> & { keys: AcceptedKeys },
  ended: EndedSessions = noEndedSessions,
): void {
  const resolvePrincipal = createPrincipalResolver(deps, ended);
  app.decorateRequest('principal', null);
  // Callback-style (not async): no promise and no extra microtask on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const level = request.routeOptions.config?.access ?? 'public';
    // Public routes ignore a bad credential rather than fail on it.
    if (level === 'public') {
      try {
        request.principal = resolvePrincipal(request);
      } catch {
        request.principal = null;
      }
      return done();
    }
    try {
      request.principal = resolvePrincipal(request);
      enforce(level, request.principal);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}

/** The principal of a route whose access level guarantees one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

export const isAdmin = (p: Principal | null): boolean => p?.kind === 'admin';
