// Use cases of user accounts: registration, password sign-in, profiles, and admin management.
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import type { User } from './auth.schemas.js';
import { readAuthConfig } from './config.repo.js';
import { assertPasswordMeetsPolicy } from './password-policy.js';
import { authLimits, LOCKED_ACCOUNT_HINT } from './rate-limits.js';
import { createSignInAttempts } from './sign-in-attempts.js';
import type { EmailAuthService } from './email-auth.service.js';
import type { SessionService } from './sessions.service.js';
import type { IssuedTokens } from './tokens.js';
import * as users from './users.repo.js';

export interface Registration {
  email: string;
  password: string;
  name?: string;
  /** The new account's whole profile (a Supabase sign-up's `data`); `name` is used when absent. */
  profile?: Record<string, unknown>;
  redirectTo?: string;
  autoConfirm?: boolean;
}

export type RegistrationResult =
  | { user: User; tokens: IssuedTokens }
  | { user: User; tokens: null; requireEmailVerification: boolean };

const invalidCredentials = () =>
  new AppError('UNAUTHORIZED', 'Invalid credentials', {
    nextActions: 'Check the email and password, or reset the password.',
  });

export function createUserService(
  deps: Pick<Deps, 'sql' | 'clock' | 'hasher'>,
  sessions: SessionService,
  emailAuth: Pick<EmailAuthService, 'checkVerificationRedirect' | 'sendSignUpVerification'>,
) {
  const limiter = createRateLimiter(deps.sql, deps.clock);
  const attempts = createSignInAttempts(deps.sql, deps.clock, {
    perIp: authLimits.failedSignInsPerIp,
    perAccount: authLimits.failedSignInsPerAccount,
    lockedAccountHint: LOCKED_ACCOUNT_HINT,
  });

  async function getUser(userId: string): Promise<User> {
    const user = await users.findUserById(deps.sql, userId);
    if (!user) throw new AppError('AUTH_USER_NOT_FOUND', 'User does not exist.');
    return user;
  }

  return {
    /**
     * Public sign-up opens a session, or sends the verification email when the project requires
     * one; an admin creates the account only.
     */
    async register(input: Registration, byAdmin: boolean, ip: string): Promise<RegistrationResult> {
      // Admin-authenticated calls are never limited per IP (contract Part A item 16).
      if (!byAdmin) await limiter.hit(authLimits.registrationsPerIp, ip);
      const config = await readAuthConfig(deps.sql);
      if (config.disableSignup && !byAdmin) {
        throw new AppError('AUTH_SIGNUP_DISABLED', undefined, {
          nextActions: 'Ask the project admin to create the account, or to enable signups.',
        });
      }
      assertPasswordMeetsPolicy(input.password, config);
      const emailVerified = byAdmin && input.autoConfirm === true;
      const needsVerification = config.requireEmailVerification && !emailVerified;
      if (needsVerification && !byAdmin) emailAuth.checkVerificationRedirect(config, input.redirectTo);
      const user = await users.insertUser(deps.sql, {
        email: input.email,
        passwordHash: await deps.hasher.hash(input.password),
        emailVerified,
        profile: input.profile ?? (input.name ? { name: input.name } : {}),
      });
      if (!user) {
        throw new AppError('AUTH_EMAIL_EXISTS', 'User already exists', {
          nextActions: 'Sign in instead, or reset the password if it is forgotten.',
        });
      }
      if (byAdmin) return { user, tokens: null, requireEmailVerification: needsVerification };
      if (needsVerification) {
        await emailAuth.sendSignUpVerification(input.email, config, input.redirectTo);
        return { user, tokens: null, requireEmailVerification: true };
      }
      return { user, tokens: await sessions.open({ user }) };
    },

    async signInWithPassword(
      email: string,
      password: string,
      ip: string,
    ): Promise<{ user: User; tokens: IssuedTokens }> {
      await attempts.count(email, ip);
      const { account, requireEmailVerification } = await users.findSignInCandidate(deps.sql, email);
      // Unknown emails still pay for a hash, so the answer takes as long as a wrong password.
      const ok = await deps.hasher.verify(account?.passwordHash ?? null, password);
      if (!account || !ok) throw invalidCredentials();
      await attempts.forgive(email, ip);
      const { passwordHash: _hash, ...user } = account;
      if (requireEmailVerification && !user.emailVerified) {
        throw new AppError('FORBIDDEN', 'Email verification required.', {
          nextActions:
            'Verify the email with the code or link sent at sign-up, or request a new one with POST /api/auth/email/send-verification.',
        });
      }
      return { user, tokens: await sessions.open({ user }) };
    },

    async currentUser(userId: string, sessionId: string): Promise<User> {
      const user = await users.findSessionUser(deps.sql, userId, sessionId, deps.clock.now());
      if (!user) throw new AppError('UNAUTHORIZED', 'The session has ended.', { nextActions: 'Sign in again.' });
      return user;
    },

    /**
     * Sets a new password (policy checked first); every session of the user ends but
     * `keepSessionId` (the signed-in user's own; null when an admin sets it).
     */
    async changePassword(userId: string, keepSessionId: string | null, newPassword: string): Promise<void> {
      assertPasswordMeetsPolicy(newPassword, await readAuthConfig(deps.sql));
      const passwordHash = await deps.hasher.hash(newPassword);
      const changed = await users.setPasswordHashById(deps.sql, userId, passwordHash, deps.clock.now());
      if (!changed) throw new AppError('AUTH_USER_NOT_FOUND');
      await sessions.revokeOthersOfUser(userId, keepSessionId, 'password_change');
    },

    async updateProfile(userId: string, profile: Record<string, unknown>) {
      const updated = await users.mergeProfile(deps.sql, userId, profile, deps.clock.now());
      if (!updated) throw new AppError('AUTH_USER_NOT_FOUND');
      return updated;
    },

    async publicProfile(userId: string) {
      const found = await users.findProfile(deps.sql, userId);
      if (!found) throw new AppError('AUTH_USER_NOT_FOUND');
      return found;
    },

    getUser,

    /** The live sessions of an existing user. */
    async listSessions(userId: string) {
      await getUser(userId);
      return sessions.listOfUser(userId);
    },

    /** Ends one live session of a user, or all of them when `sessionId` is null. */
    async revokeSessions(userId: string, sessionId: string | null): Promise<number> {
      await getUser(userId);
      const ended = await sessions.revokeOfUser(userId, sessionId);
      if (sessionId !== null && ended === 0) {
        throw new AppError('NOT_FOUND', 'This user has no live session with this id.', {
          nextActions: 'List the live sessions with GET /api/auth/users/{userId}/sessions and pick one of them.',
        });
      }
      return ended;
    },

    listUsers: (page: { limit: number; offset: number; search?: string; anonymous?: boolean }) =>
      users.listUsers(deps.sql, page),

    /** Deletes users; their sessions go with them (foreign keys cascade) and their tokens stop. */
    async deleteUsers(ids: string[]): Promise<number> {
      const { deletedCount, endedSessionIds } = await users.deleteUsers(deps.sql, ids);
      sessions.refuseAtOnce(endedSessionIds);
      return deletedCount;
    },
  };
}
