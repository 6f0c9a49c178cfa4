// What every emailed secret that signs a user in shares (codes of the email flows, links of
// generate_link and invitations): the failed-attempt limits around a check, the take-over of an
// unverified account by the inbox's owner, and the session it opens.
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import { claimUnverifiedAccount } from './accounts.service.js';
import type { User } from './auth.schemas.js';
import { authLimits } from './rate-limits.js';
import type { SessionService } from './sessions.service.js';
import type { IssuedTokens } from './tokens.js';
import * as users from './users.repo.js';

export const invalidCode = () =>
  new AppError('VALIDATION_ERROR', 'Invalid or expired code', {
    nextActions: 'Request a new code and try again.',
  });

export type EmailSignIn = ReturnType<typeof createEmailSignIn>;

export function createEmailSignIn(
  deps: Pick<Deps, 'sql' | 'clock'>,
  sessions: SessionService,
  limiter: ReturnType<typeof createRateLimiter>,
) {
  return {
    /**
     * Runs a code or token check under the failed-attempts limits of the address (when the check
     * names one) and of the caller's IP: one user's wrong codes do not lock out their neighbours.
     */
    async checked<T>(
      subject: { ip: string; email?: string },
      check: () => Promise<T | undefined>,
      fail: () => AppError,
    ): Promise<T> {
      const { ip, email } = subject;
      await Promise.all([
        limiter.check(authLimits.failedCodesPerIp, ip),
        email === undefined ? undefined : limiter.check(authLimits.failedCodesPerAddress, email),
      ]);
      const result = await check();
      if (result === undefined) {
        await Promise.all([
          limiter.record(authLimits.failedCodesPerIp, ip),
          email === undefined ? undefined : limiter.record(authLimits.failedCodesPerAddress, email),
        ]);
        throw fail();
      }
      return result;
    },

    /**
     * The account a correct sign-in code opens. Whoever registered the address without proving
     * the inbox loses the password and every session they opened with it; from now on the account
     * signs in by code.
     */
    async claimAccount(tx: Queryable, account: { id: string; emailVerified: boolean }, email: string) {
      if (!account.emailVerified) {
        await claimUnverifiedAccount(tx, { id: account.id, email }, deps.clock.now(), 'email_code_takeover');
        await users.addEmailCodeProvider(tx, account.id, email);
      }
      return account.id;
    },

    async openSessionFor(userId: string): Promise<{ user: User; tokens: IssuedTokens }> {
      const user = await users.findUserById(deps.sql, userId);
      if (!user) throw invalidCode();
      return { user, tokens: await sessions.open({ user }, 'otp') };
    },
  };
}
