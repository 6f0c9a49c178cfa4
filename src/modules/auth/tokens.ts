// The credentials a session hands out: short-lived access tokens (ES256, or RS256 on an older RSA key), opaque refresh tokens
// (stored only as SHA-256), and CSRF tokens bound to the current refresh token. A refresh token's
// successor is an HMAC of it, so two concurrent refreshes of one token agree on the next one.
import { epochSeconds } from '../../core/clock.js';
import { hmacBase64Url, randomToken, sha256 } from '../../core/ids.js';
import { signJwt } from '../../core/jwt.js';
import type { KeyedDeps } from '../secrets/index.js';
import type { User } from './auth.schemas.js';

/** How a session started: the `amr` (authentication methods reference) entry of its tokens. */
export type SignInMethod = 'password' | 'otp' | 'oauth' | 'webauthn' | 'anonymous';

/**
 * Claims of an access token. Admin tokens carry only the first four. User tokens also carry
 * Supabase's claim set (what supabase-js and Supabase-style RLS read), so one token works on
 * Plinth's routes and on /auth/v1: `session_id` names the same session as `sid`.
 */
export interface AccessClaims {
  sub: string;
  role: 'authenticated' | 'project_admin';
  sid: string;
  email?: string;
  aud?: 'authenticated';
  phone?: string;
  app_metadata?: { provider: string; providers: string[] };
  user_metadata?: Record<string, unknown>;
  session_id?: string;
  is_anonymous?: boolean;
  aal?: AssuranceLevel;
  amr?: AmrEntry[];
}

/** aal1: one factor (password, code, OAuth…); aal2: a second factor too (TOTP, recovery code, passkey). */
export type AssuranceLevel = 'aal1' | 'aal2';
/** How a session was signed in or stepped up; `timestamp` in epoch seconds (GoTrue's amr claim). */
export interface AmrEntry {
  method: string;
  timestamp: number;
}

/**
 * The claims of a session's access token. A user's carry Supabase's set as well;
 * an admin's stay minimal. `assurance` is the session row's (null: a first factor only).
 */
export function accessClaimsOf(
  owner: { user: User } | { adminSubject: string },
  sessionId: string,
  assurance: { aal: AssuranceLevel | null; amr: AmrEntry[] | null },
): AccessClaims {
  const aal = assurance.aal ?? 'aal1';
  const amr = assurance.amr ?? [];
  if (!('user' in owner)) return { sub: owner.adminSubject, role: 'project_admin', sid: sessionId, aal, amr };
  return {
    sub: owner.user.id,
    sid: sessionId,
    session_id: sessionId,
    // An anonymous user's token carries email "" (as GoTrue's does) and is_anonymous.
    email: owner.user.email ?? '',
    role: 'authenticated',
    aud: 'authenticated',
    phone: '',
    app_metadata: { provider: owner.user.providers[0] ?? 'email', providers: owner.user.providers },
    user_metadata: owner.user.profile,
    is_anonymous: owner.user.isAnonymous,
    aal,
    amr,
  };
}

export interface IssuedTokens {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  /** Bound to the refresh token; web clients get it (made when read: an HMAC). */
  readonly csrfToken: string;
  /** Set at sign-in when the owner has verified second factors: the session is aal1 until one is verified. */
  readonly mfa?: MfaRequirement;
}

/** A second factor of a session's owner, as a sign-in answer lists it: a verified TOTP factor or a passkey. */
export interface VerifiedFactor {
  id: string;
  type: 'totp' | 'webauthn';
  friendlyName: string;
}

/** What a sign-in answer says about second factors (`required`: verify one to reach aal2). */
export interface MfaRequirement {
  required: boolean;
  factors: VerifiedFactor[];
}

export type Tokens = ReturnType<typeof createTokens>;

const csrfTokenOf = (key: Buffer, refreshToken: string): string => hmacBase64Url(key, refreshToken);

/**
 * A session's tokens, with the CSRF token made only when read. A class, not an object literal
 * with a getter: V8 builds such a literal through its runtime, ~1.5 µs each (the class: ~0.01).
 */
class SessionTokens implements IssuedTokens {
  readonly #csrfKey: Buffer;

  constructor(
    readonly sessionId: string,
    readonly accessToken: string,
    readonly refreshToken: string,
    csrfKey: Buffer,
    readonly mfa: MfaRequirement | undefined = undefined,
  ) {
    this.#csrfKey = csrfKey;
  }

  get csrfToken(): string {
    return csrfTokenOf(this.#csrfKey, this.refreshToken);
  }
}

export function createTokens(deps: Pick<KeyedDeps, 'keys' | 'clock' | 'config' | 'hmacKeys'>) {
  return {
    async accessToken(claims: AccessClaims): Promise<string> {
      const iat = epochSeconds(deps.clock.now());
      return signJwt(deps.keys.signingKey, { ...claims, iat, exp: iat + deps.config.accessTokenTtlSeconds });
    },
    newRefreshToken: (): string => randomToken(),
    successorOf: (refreshToken: string): string => hmacBase64Url(deps.hmacKeys.refreshSuccessor, refreshToken),
    csrfFor: (refreshToken: string): string => csrfTokenOf(deps.hmacKeys.csrf, refreshToken),
    issued: (sessionId: string, accessToken: string, refreshToken: string, mfa?: MfaRequirement): IssuedTokens =>
      new SessionTokens(sessionId, accessToken, refreshToken, deps.hmacKeys.csrf, mfa),
    hash: (token: string): Buffer => sha256(token),
  };
}
