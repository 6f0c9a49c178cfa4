// Failed password sign-ins counted per IP and per account in PostgreSQL, for users and the admin
// alike (each with its own pair of limits): every attempt counts before the password is checked,
// and a success gives its count back.
import type { Clock } from '../../core/clock.js';
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { createRateLimiter, type Limit } from '../../core/rate-limiter.js';

export interface SignInLimits {
  perIp: Limit;
  perAccount: Limit;
  /** What the owner of a locked account can do besides waiting (added to the 429's nextActions). */
  lockedAccountHint: string;
}

export function createSignInAttempts(db: Queryable, clock: Clock, limits: SignInLimits) {
  const limiter = createRateLimiter(db, clock);
  return {
    /**
     * Counts the attempt before the password is checked (so parallel guesses cannot overshoot):
     * per IP, and per account (unknown addresses too, so a 429 says nothing about registration).
     * A locked account is refused without checking the password, so the lock is no oracle.
     */
    async count(account: string, ip: string): Promise<void> {
      await limiter.hit(limits.perIp, ip);
      try {
        await limiter.hit(limits.perAccount, account);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        throw new AppError('TOO_MANY_REQUESTS', err.message, {
          headers: err.headers,
          nextActions: `${err.nextActions} ${limits.lockedAccountHint}`,
        });
      }
    },

    /** A success is not a failure: the account's counter is cleared and the IP's hit taken back. */
    async forgive(account: string, ip: string): Promise<void> {
      await Promise.all([limiter.release(limits.perAccount, account), limiter.refund(limits.perIp, ip)]);
    },

    /** The account's owner proved it another way (an emailed code): its lock is lifted. */
    liftAccountLock: (account: string) => limiter.release(limits.perAccount, account),
  };
}
