// Anonymous users: signing in as one (when the admin allows it), converting one by adding an
// email and password (same user id and data), and removing those inactive past the retention.
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import * as repo from './anonymous.repo.js';
import { readAuthConfig } from './config.repo.js';
import type { EmailAuthService } from './email-auth.service.js';
import { assertPasswordMeetsPolicy } from './password-policy.js';
import { authLimits } from './rate-limits.js';
import type { SessionService } from './sessions.service.js';
import { findUserById } from './users.repo.js';

const CLEANUP_BATCH = 500;

/** A delete refused because a row of the app still references the user (foreign_key_violation). */
const isStillReferenced = (err: unknown) => (err as { code?: unknown } | null)?.code === '23503';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface EmailPasswordInput {
  email: string;
  password: string;
  redirectTo?: string;
}

export type AnonymousService = ReturnType<typeof createAnonymousService>;

export function createAnonymousService(
  deps: Pick<Deps, 'sql' | 'clock' | 'hasher'>,
  sessions: SessionService,
  emailAuth: Pick<EmailAuthService, 'checkVerificationRedirect' | 'sendSignUpVerification'>,
) {
  const limiter = createRateLimiter(deps.sql, deps.clock);

  return {
    /** A new anonymous user and its session (GoTrue: POST /signup with no email). */
    async signIn(ip: string) {
      const config = await readAuthConfig(deps.sql);
      if (!config.anonymousSignInsEnabled) {
        throw new AppError('FORBIDDEN', 'Anonymous sign-ins are disabled for this project.', {
          nextActions: 'Sign up with an email instead, or ask the project admin to enable anonymous sign-ins.',
        });
      }
      if (config.disableSignup) {
        throw new AppError('AUTH_SIGNUP_DISABLED', undefined, {
          nextActions: 'Ask the project admin to create the account, or to enable signups.',
        });
      }
      await limiter.hit(authLimits.anonymousSignInsPerIp, ip);
      const user = await repo.insertAnonymousUser(deps.sql, deps.clock.now());
      return { user, tokens: await sessions.open({ user }, 'anonymous') };
    },

    /**
     * Adds an email and password to the signed-in anonymous user (GoTrue: PUT /user with email
     * and password). Without required verification the user stops being anonymous at once; with
     * it, a verification email goes out and the user stays anonymous until the address is
     * verified. Returns the user and a new access token of the current session.
     */
    async addEmailPassword(userId: string, sessionId: string, input: EmailPasswordInput) {
      const config = await readAuthConfig(deps.sql);
      assertPasswordMeetsPolicy(input.password, config);
      const needsVerification = config.requireEmailVerification;
      if (needsVerification) emailAuth.checkVerificationRedirect(config, input.redirectTo);
      const passwordHash = await deps.hasher.hash(input.password);
      await deps.sql.begin(async (tx) => {
        const current = await repo.lockUser(tx, userId);
        if (!current) throw new AppError('AUTH_USER_NOT_FOUND');
        if (!current.isAnonymous || current.email !== null) {
          throw new AppError('CONFLICT', 'This user already has an email address.', {
            nextActions:
              'Change the password with the password reset flow (POST /api/auth/email/send-reset-password); only an anonymous user adds an email here.',
          });
        }
        if (await repo.emailTaken(tx, input.email, userId)) {
          throw new AppError('AUTH_EMAIL_EXISTS', undefined, {
            nextActions:
              'Use another address, or sign in to the existing account (the anonymous data stays with this anonymous user).',
          });
        }
        await repo.setEmailAndPassword(tx, {
          userId,
          email: input.email,
          passwordHash,
          stillAnonymous: needsVerification,
          now: deps.clock.now(),
        });
      });
      if (needsVerification) await emailAuth.sendSignUpVerification(input.email, config, input.redirectTo);
      const user = (await findUserById(deps.sql, userId))!;
      return {
        user,
        accessToken: await sessions.reissueAccess(sessionId, user),
        requireEmailVerification: needsVerification,
      };
    },

    /**
     * Removes anonymous users inactive for the configured number of days, with their sessions
     * (cascade), in batches; safe to run on several servers at once. A user the app's rows still
     * reference (a foreign key without ON DELETE CASCADE / SET NULL) is kept and counted as
     * skipped, so it never blocks the others.
     */
    async removeInactive(): Promise<{ deletedCount: number; skippedCount: number }> {
      const config = await readAuthConfig(deps.sql);
      const now = deps.clock.now();
      const cutoff = new Date(now.getTime() - config.anonymousRetentionDays * DAY_MS);
      const skipIds: string[] = [];
      let deletedCount = 0;
      const sweep = async (limit: number, onlyId?: string) => {
        const { deletedIds, endedSessionIds } = await repo.deleteInactiveAnonymousUsers(deps.sql, {
          cutoff,
          now,
          limit,
          skipIds,
          onlyId,
        });
        sessions.refuseAtOnce(endedSessionIds);
        deletedCount += deletedIds.length;
        return deletedIds.length;
      };
      for (;;) {
        try {
          if ((await sweep(CLEANUP_BATCH)) < CLEANUP_BATCH) return { deletedCount, skippedCount: skipIds.length };
        } catch (err) {
          if (!isStillReferenced(err)) throw err;
          // One at a time, to find the users the app's rows still hold on to.
          const ids = await repo.findInactiveAnonymousUsers(deps.sql, cutoff, CLEANUP_BATCH, skipIds);
          if (ids.length === 0) return { deletedCount, skippedCount: skipIds.length };
          for (const id of ids) {
            try {
              await sweep(1, id);
            } catch (one) {
              if (!isStillReferenced(one)) throw one;
              skipIds.push(id);
            }
          }
        }
      }
    },
  };
}
