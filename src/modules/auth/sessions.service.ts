// Sessions of users and of the project admin: opening one, rotating its refresh token, and
// revoking it. The rules of rotation and reuse detection live in auth.rotate_refresh_token.
import { randomUUID } from 'node:crypto';
import { epochSeconds } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { safeEqual } from '../../core/ids.js';
import type { KeyedDeps } from '../secrets/index.js';
import type { User } from './auth.schemas.js';
import {
  findLiveSessionByToken,
  listLiveUserSessions,
  revokeSessions,
  revokeSessionsOfUser,
  revokeSessionsOfUserExcept,
  rotateRefreshToken,
  startSession,
  type SessionOwner,
} from './sessions.repo.js';
import type { RevokedSessions } from './revoked-sessions.js';
import { accessClaimsOf, createTokens, type AccessClaims, type IssuedTokens, type SignInMethod } from './tokens.js';

export type SessionKind = 'user' | 'admin';

export interface RefreshedSession {
  tokens: IssuedTokens;
  user: User | null;
  adminSubject: string | null;
}

const invalidRefresh = () =>
  new AppError('UNAUTHORIZED', 'Invalid or expired refresh token.', {
    nextActions: 'Sign in again to start a new session.',
  });

export const adminSubjectOf = (email: string) => `local:${email}`;

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService(
  deps: Pick<KeyedDeps, 'sql' | 'clock' | 'config' | 'keys' | 'hmacKeys'>,
  revoked?: Pick<RevokedSessions, 'add'>,
) {
  const tokens = createTokens(deps);
  const ttlSeconds = deps.config.refreshTokenTtlSeconds;

  /** A session's tokens: a new access token with the refresh token. */
  async function issue(sessionId: string, claims: AccessClaims, refreshToken: string) {
    return tokens.issued(sessionId, await tokens.accessToken(claims), refreshToken);
  }

  const csrfMatches = (refreshToken: string, csrfToken: string | undefined): boolean =>
    csrfToken !== undefined && safeEqual(csrfToken, tokens.csrfFor(refreshToken));

  const isLive = async (refreshToken: string): Promise<boolean> =>
    (await findLiveSessionByToken(deps.sql, tokens.hash(refreshToken), deps.clock.now())) !== undefined;

  async function revoke(by: { refreshTokens?: string[]; sessionIds?: string[] }, reason: string): Promise<number> {
    const tokenHashes = (by.refreshTokens ?? []).map(tokens.hash);
    const sessionIds = by.sessionIds ?? [];
    if (tokenHashes.length === 0 && sessionIds.length === 0) return 0;
    const ended = await revokeSessions(deps.sql, { tokenHashes, sessionIds }, deps.clock.now(), reason);
    // This server refuses their access tokens at once; the others hear the NOTIFY.
    revoked?.add(ended);
    return ended.length;
  }

  return {
    /** This server refuses these ended sessions' access tokens at once; the others hear the NOTIFY. */
    refuseAtOnce: (sessionIds: string[]) => revoked?.add(sessionIds),

    /**
     * Starts a session (`method` its first amr entry) and returns its first tokens. It starts at
     * aal1, and when the owner has second factors the tokens say so (`mfa.required`); a passkey
     * that verified its user ('webauthn') is two factors in one step, so that session starts at aal2.
     */
    async open(
      owner: { user: User } | { adminSubject: string },
      method: SignInMethod = 'password',
    ): Promise<IssuedTokens> {
      const sessionId = randomUUID();
      const refreshToken = tokens.newRefreshToken();
      const sessionOwner: SessionOwner = 'user' in owner ? { userId: owner.user.id } : owner;
      const now = deps.clock.now();
      const amr = [{ method, timestamp: epochSeconds(now) }];
      const aal = method === 'webauthn' ? 'aal2' : 'aal1';
      const claims = accessClaimsOf(owner, sessionId, { aal, amr });
      // The access token is signed on the thread pool while the session row is written.
      const [issued, factors] = await Promise.all([
        issue(sessionId, claims, refreshToken),
        startSession(deps.sql, {
          id: sessionId,
          owner: sessionOwner,
          tokenHash: tokens.hash(refreshToken),
          now,
          ttlSeconds,
          amr,
          aal,
        }),
      ]);
      if (factors.length === 0 || aal === 'aal2') return issued;
      return tokens.issued(sessionId, issued.accessToken, refreshToken, { required: true, factors });
    },

    /**
     * Exchanges a refresh token for new tokens. `csrfToken`, when given, must be the one issued
     * with this refresh token (web clients). Only sessions of `kind` are accepted.
     */
    async refresh(refreshToken: string, kind: SessionKind, csrfToken?: string): Promise<RefreshedSession> {
      if (csrfToken !== undefined && !csrfMatches(refreshToken, csrfToken)) {
        throw new AppError('FORBIDDEN', 'Invalid CSRF token.', {
          nextActions: 'Send the csrfToken from the last sign-in or refresh in the X-CSRF-Token header.',
        });
      }
      const successor = tokens.successorOf(refreshToken);
      const result = await rotateRefreshToken(deps.sql, {
        tokenHash: tokens.hash(refreshToken),
        successorHash: tokens.hash(successor),
        now: deps.clock.now(),
        graceSeconds: deps.config.refreshReuseGraceSeconds,
        ttlSeconds,
        admin: kind === 'admin',
      });
      if (result.outcome !== 'rotated' || !result.sessionId) throw invalidRefresh();
      if (kind === 'user' && result.user) {
        const issued = await issue(
          result.sessionId,
          accessClaimsOf({ user: result.user }, result.sessionId, result),
          successor,
        );
        return { tokens: issued, user: result.user, adminSubject: null };
      }
      if (kind === 'admin' && result.adminSubject) {
        const issued = await issue(
          result.sessionId,
          accessClaimsOf({ adminSubject: result.adminSubject }, result.sessionId, result),
          successor,
        );
        return { tokens: issued, user: null, adminSubject: result.adminSubject };
      }
      throw invalidRefresh();
    },

    /**
     * Ends the sessions a logout names. A web cookie needs its CSRF token while its session is
     * live, so a forged cross-site request cannot end it (`sameOrigin`: the browser vouches that a
     * page of this origin sent it, see csrf-proof.ts); a dead cookie is simply cleared.
     */
    async logout(by: {
      cookie?: string;
      csrfToken?: string;
      sameOrigin?: boolean;
      bodyToken?: string;
      sessionId?: string;
    }) {
      if (by.cookie && !by.sameOrigin && !csrfMatches(by.cookie, by.csrfToken) && (await isLive(by.cookie))) {
        throw new AppError('FORBIDDEN', 'Invalid CSRF token.');
      }
      const refreshTokens = [by.cookie, by.bodyToken].filter((t): t is string => !!t);
      await revoke({ refreshTokens, sessionIds: by.sessionId ? [by.sessionId] : [] }, 'logout');
    },

    revoke,

    /**
     * A new access token for a live session of `user`, its refresh token unchanged: after the
     * user changed what its claims say (e.g. is_anonymous), the current session says so at once.
     */
    reissueAccess: (sessionId: string, user: User): Promise<string> =>
      tokens.accessToken(accessClaimsOf({ user }, sessionId, { aal: null, amr: null })),

    /** A user's live sessions, newest first (the admin's view). */
    async listOfUser(userId: string) {
      const rows = await listLiveUserSessions(deps.sql, userId, deps.clock.now());
      return rows.map((r) => ({
        id: r.id,
        createdAt: r.createdAt.toISOString(),
        refreshedAt: r.refreshedAt?.toISOString() ?? null,
        expiresAt: r.expiresAt.toISOString(),
      }));
    },

    /** Ends every live session of a user except `keep` (null: all of them); returns how many ended. */
    async revokeOthersOfUser(userId: string, keep: string | null, reason: string): Promise<number> {
      const ended = await revokeSessionsOfUserExcept(deps.sql, userId, keep, deps.clock.now(), reason);
      revoked?.add(ended);
      return ended.length;
    },

    /** Ends one session of a user (or all when `sessionId` is null); returns how many ended. */
    async revokeOfUser(userId: string, sessionId: string | null): Promise<number> {
      const ended = await revokeSessionsOfUser(deps.sql, userId, sessionId, deps.clock.now(), 'admin');
      revoked?.add(ended);
      return ended.length;
    },
  };
}
