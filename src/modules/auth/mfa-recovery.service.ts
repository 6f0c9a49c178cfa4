// Recovery codes: a user who lost the authenticator uses one (single use) to raise the session to
// aal2; at aal2 the user may replace all ten (the old ones stop working). Wrong codes are limited.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { KeyedDeps } from '../secrets/index.js';
import { raiseSessionAssurance } from './assurance.service.js';
import { newRecoveryCodes, recoveryCodeFailures, recoveryCodeHash } from './mfa-checks.js';
import * as repo from './mfa.repo.js';
import { needsAal2 } from './assurance.service.js';
import type { MfaCaller } from './mfa.service.js';

export type MfaRecoveryService = ReturnType<typeof createMfaRecoveryService>;

export function createMfaRecoveryService(deps: KeyedDeps) {
  const limiter = createRateLimiter(deps.sql, deps.clock);

  return {
    /** How many unused recovery codes the user has left. */
    remaining: async (userId: string) => (await repo.recoveryCodeCounts(deps.sql, userId)).unused,

    /** Uses a recovery code: the session rises to aal2 (amr "recovery"); the code never works again. */
    async verify(caller: MfaCaller, code: string) {
      await limiter.check(recoveryCodeFailures, caller.userId);
      const hash = recoveryCodeHash(caller.userId, code);
      const raised = await withTx(deps.sql, async (tx) => {
        if (!(await repo.useRecoveryCode(tx, caller.userId, hash, deps.clock.now()))) return null;
        return raiseSessionAssurance(
          { ...deps, sql: tx },
          { sessionId: caller.sessionId, userId: caller.userId, method: 'recovery' },
        );
      });
      if (raised) return raised;
      await limiter.record(recoveryCodeFailures, caller.userId);
      throw new AppError('AUTH_MFA_VERIFICATION_FAILED', 'Invalid or already used recovery code.', {
        nextActions: 'Enter one of the unused recovery codes shown when the first factor was verified.',
      });
    },

    /** Replaces the user's recovery codes with ten new ones (at aal2, with a verified factor). */
    async regenerate(caller: MfaCaller): Promise<string[]> {
      if (caller.aal !== 'aal2') throw needsAal2();
      return withTx(deps.sql, async (tx) => {
        const factors = await repo.listFactors(tx, { userId: caller.userId });
        if (!factors.some((f) => f.status === 'verified')) {
          throw new AppError('CONFLICT', 'Recovery codes need a verified factor.', {
            nextActions: 'Enroll and verify a TOTP factor first (POST /api/auth/mfa/factors).',
          });
        }
        const codes = newRecoveryCodes();
        const hashes = codes.map((c) => recoveryCodeHash(caller.userId, c));
        await repo.replaceRecoveryCodes(tx, caller.userId, hashes, deps.clock.now());
        return codes;
      });
    },
  };
}
