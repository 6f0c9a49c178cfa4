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
}

export interface IssuedTokens {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  /** Bound to the refresh token; web clients get it (made when read: an HMAC). */
  readonly csrfToken: string;
}

export type Tokens = ReturnType<typeof createTokens>;

export function createTokens(deps: Pick<KeyedDeps, 'keys' | 'clock' | 'config' | 'hmacKeys'>) {
  return {
    async accessToken(claims: AccessClaims): Promise<string> {
      const iat = epochSeconds(deps.clock.now());
      return signJwt(deps.keys.signingKey, { ...claims, iat, exp: iat + deps.config.accessTokenTtlSeconds });
    },
    newRefreshToken: (): string => randomToken(),
    successorOf: (refreshToken: string): string => hmacBase64Url(deps.hmacKeys.refreshSuccessor, refreshToken),
    csrfFor: (refreshToken: string): string => hmacBase64Url(deps.hmacKeys.csrf, refreshToken),
    hash: (token: string): Buffer => sha256(token),
  };
}
