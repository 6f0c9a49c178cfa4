// The credentials a session hands out: short-lived access tokens (ES256, or RS256 on an older RSA key), opaque refresh tokens
// (stored only as SHA-256), and CSRF tokens bound to the current refresh token. A refresh token's
// successor is an HMAC of it, so two concurrent refreshes of one token agree on the next one.
import { epochSeconds } from '../../core/clock.js';
import { hmacBase64Url, randomToken, sha256 } from '../../core/ids.js';
import { signJwt } from '../../core/jwt.js';
import type { KeyedDeps } from '../secrets/index.js';

export interface AccessClaims {
  sub: string;
  role: 'authenticated' | 'project_admin';
  sid: string;
  email?: string;
  // MFA (issue 34): the session's assurance level and how it was reached (the session row's aal, amr).
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

export interface IssuedTokens {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  /** Bound to the refresh token; web clients get it (made when read: an HMAC). */
  readonly csrfToken: string;
  /** Set at sign-in when the owner has verified second factors: the session is aal1 until one is verified. */
  readonly mfa?: MfaRequirement;
}

/** What a sign-in answer says about second factors (`required`: verify one to reach aal2). */
export interface MfaRequirement {
  required: boolean;
  factors: { id: string; type: 'totp'; friendlyName: string }[];
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
