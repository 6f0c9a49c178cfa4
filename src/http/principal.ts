// Who is calling: resolves the request's credential (API key, anon key or access token) into a
// principal (core/principal.ts), and enforces each route's declared access level before its body
// is even read.
import type { KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { epochSeconds } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { sha256 } from '../core/ids.js';
import { createVerifiedTokenCache } from '../core/verified-tokens.js';
import type { MaybePrincipal, Principal } from '../core/principal.js';
import type { Deps } from '../deps.js';

/**
 * public: anyone; client: any valid credential; token: an access token (user or admin) only;
 * admin: an admin access token or the API key.
 */
export type AccessLevel = 'public' | 'client' | 'token' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; a route without one fails startup (http/route-access.ts). */
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
const REJECTIONS = {
  expired: 'The access token has expired.',
  lifetime: 'The access token lives longer than this server allows.',
  malformed: 'Invalid access token.',
  signature: 'Invalid access token.',
} as const;

const rejectedAccessToken = (message: string) =>
  new AppError('AUTH_UNAUTHORIZED', message, {
    nextActions: 'Refresh the session (POST /api/auth/refresh) and retry with the new access token, or sign in again.',
  });

/** Sessions that ended while their access tokens may live on (fed by NOTIFY on every server). */
export interface EndedSessions {
  has(sessionId: string): boolean;
  /** Calls `listener` with each session as it ends (the verified-token cache forgets its tokens). */
  onEnded?(listener: (sessionId: string) => void): void;
}

const noEndedSessions: EndedSessions = { has: () => false };

/** Whether an admin token's session is live (answered from memory, or by one database read). */
export interface AdminSessions {
  isLive(sessionId: string, subject: string): boolean | Promise<boolean>;
}

/** What a credential is checked against: the platform keys the secrets module loads and rotates. */
export interface AcceptedKeys {
  /** SHA-256 (hex) of every accepted API key → when it stops working (epoch ms; null: never). */
  apiKeyHashes: Map<string, number | null>;
  anonKeyHashes: Map<string, number | null>;
  /** Public keys that verify access tokens, by key id. */
  publicKeys: Map<string, KeyObject>;
  /** Key id → when a retired signing key stops verifying (epoch ms); absent: never. */
  publicKeyExpiry: Map<string, number>;
}

/** Drops the retired signing keys whose grace period has ended (a handful at most). */
export function dropExpiredPublicKeys(keys: AcceptedKeys, nowMs: number): void {
  for (const [kid, expiresAt] of keys.publicKeyExpiry) {
    if (expiresAt > nowMs) continue;
    keys.publicKeys.delete(kid);
    keys.publicKeyExpiry.delete(kid);
  }
}

/**
 * Resolves one credential (API key, anon key or access token, as sent after "Bearer ") into a
 * principal; throws 401 on an unknown key, a bad or expired token, or an ended session. The
 * realtime handshake uses it directly.
 */
const MAX_REMEMBERED_KEYS = 64;

type ResolverDeps = Pick<Deps, 'clock' | 'config'> & { keys: AcceptedKeys };

/** Binds admin tokens to their session: refused (401) unless it is live. */
function requireLiveAdminSession(
  principal: Extract<Principal, { via: 'token' }>,
  sessions: AdminSessions,
): MaybePrincipal {
  const refuse = () => rejectedAccessToken('The session of this access token has ended.');
  const live = sessions.isLive(principal.sessionId, principal.subject);
  if (live === true) return principal;
  if (live === false) throw refuse();
  return live.then((ok) => {
    if (!ok) throw refuse();
    return principal;
  });
}

export function createCredentialResolver(
  deps: ResolverDeps,
  ended: EndedSessions = noEndedSessions,
  adminSessions?: AdminSessions,
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

  const tokens = createVerifiedTokenCache({
    maxEntries: deps.config.accessTokenCacheSize,
    maxLifetimeSeconds: deps.config.accessTokenMaxLifetimeSeconds,
  });
  ended.onEnded?.((sessionId) => tokens.forgetSession(sessionId));

  return function resolveCredential(credential: string): MaybePrincipal {
    if (API_KEY.test(credential)) {
      if (!isKnown(deps.keys.apiKeyHashes, credential)) throw unauthorized('Invalid API key.');
      return { kind: 'admin', subject: 'api-key', via: 'apiKey' };
    }
    if (ANON_KEY.test(credential)) {
      if (!isKnown(deps.keys.anonKeyHashes, credential)) throw unauthorized('Invalid anon key.');
      return { kind: 'anon' };
    }
    const now = deps.clock.now();
    if (deps.keys.publicKeyExpiry.size > 0) dropExpiredPublicKeys(deps.keys, now.getTime());
    const result = tokens.verify(credential, deps.keys.publicKeys, epochSeconds(now));
    if (!result.ok) {
      // Only something presented as an access token gets the code the client refreshes on.
      if (!isJwtShaped(credential)) throw unauthorized('Invalid access token.');
      throw rejectedAccessToken(REJECTIONS[result.reason]);
    }
    const { sub, role, sid, email, aal, is_anonymous } = result.claims;
    if (typeof sub !== 'string' || typeof sid !== 'string') throw rejectedAccessToken('Invalid access token.');
    if (ended.has(sid)) throw rejectedAccessToken('The session of this access token has ended.');
    if (role === 'project_admin') {
      const admin = { kind: 'admin', subject: sub, via: 'token', sessionId: sid } as const;
      return adminSessions ? requireLiveAdminSession(admin, adminSessions) : admin;
    }
    if (role === 'authenticated' && typeof email === 'string') {
      const level = aal === 'aal2' ? 'aal2' : 'aal1';
      return is_anonymous === true
        ? { kind: 'user', userId: sub, email, sessionId: sid, aal: level, isAnonymous: true }
        : { kind: 'user', userId: sub, email, sessionId: sid, aal: level };
    }
    throw rejectedAccessToken('Invalid access token.');
  };
}

/**
 * A project key sent in a header of its own beside Authorization, on the paths of a compatibility
 * surface (Supabase's `apikey`; modules/supabase/keys.ts).
 */
export interface ProjectKeyHeader {
  /** The header's name, lower-case. */
  name: string;
  appliesTo(url: string): boolean;
  /** The key's principal; throws a 401 for anything but a known project key. */
  principalOf(value: string, resolveCredential: (credential: string) => MaybePrincipal): Principal;
}

export function createPrincipalResolver(
  deps: ResolverDeps,
  ended: EndedSessions = noEndedSessions,
  adminSessions?: AdminSessions,
  projectKey?: ProjectKeyHeader,
) {
  const resolveCredential = createCredentialResolver(deps, ended, adminSessions);

  /** The request's principal; null without any credential; throws on an invalid one. */
  return function resolvePrincipal(request: FastifyRequest): MaybePrincipal | null {
    const header = request.headers.authorization;
    const apiKeyHeader = request.headers['x-api-key'];
    // A project key in a header of its own (Supabase's `apikey`) beside the caller's Bearer
    // credential: a wrong key is refused even with a good Bearer; without a Bearer, it is the caller.
    const projectKeyValue = projectKey && request.headers[projectKey.name];
    if (projectKeyValue !== undefined && projectKey?.appliesTo(request.url)) {
      const keyPrincipal = projectKey.principalOf(String(projectKeyValue), resolveCredential);
      if (typeof header !== 'string' || header.length === 0) return keyPrincipal;
    }
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
  deps: ResolverDeps,
  ended: EndedSessions = noEndedSessions,
  adminSessions?: AdminSessions,
  projectKey?: ProjectKeyHeader,
): void {
  const resolvePrincipal = createPrincipalResolver(deps, ended, adminSessions, projectKey);
  app.decorateRequest('principal', null);
  // Callback-style (not async): no promise and no extra microtask on every request; only an
  // admin token whose session is not confirmed yet waits for one database read.
  app.addHook('onRequest', (request, _reply, done) => {
    // Every route has a level (http/route-access.ts refuses one without at startup); only the
    // not-found handler has none, and an unknown path answers 404 to anyone.
    const level = request.routeOptions.config?.access ?? (request.is404 ? 'public' : 'admin');
    const settle = (principal: Principal | null) => {
      request.principal = principal;
      enforce(level, principal);
    };
    const fail = (err: unknown) => {
      // Public routes ignore a bad credential rather than fail on it.
      if (level !== 'public') return done(err as Error);
      request.principal = null;
      done();
    };
    try {
      const resolved = resolvePrincipal(request);
      if (resolved instanceof Promise) {
        resolved.then((principal) => {
          try {
            settle(principal);
          } catch (err) {
            return fail(err);
          }
          done();
        }, fail);
        return;
      }
      settle(resolved);
    } catch (err) {
      return fail(err);
    }
    done();
  });
}

/** The principal of a route whose access level guarantees one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
