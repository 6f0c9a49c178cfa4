// Users' TOTP factors: enroll (secret, URI, QR code), challenge, verify (the session rises to
// aal2; the first verified factor also brings ten recovery codes), list and unenroll (at aal2),
// and the admin's view (list, remove). Wrong codes are counted even though the request fails.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import { raiseSessionAssurance, requireAal2ForFactorChange } from './assurance.service.js';
import type { User } from './auth.schemas.js';
import {
  CHALLENGE_TTL_SECONDS,
  type CodeCheck,
  checkTotpCode,
  factorLocked,
  MAX_FACTORS_PER_OWNER,
  newRecoveryCodes,
  recoveryCodeHash,
} from './mfa-checks.js';
import { newTotpSecret, totpQrCode, totpUri } from './mfa-totp.js';
import * as repo from './mfa.repo.js';
import type { AssuranceLevel, IssuedTokens } from './tokens.js';

/** The signed-in user calling (from the access token). */
export interface MfaCaller {
  userId: string;
  email: string;
  sessionId: string;
  aal: AssuranceLevel;
}

export const factorNotFound = () =>
  new AppError('AUTH_MFA_FACTOR_NOT_FOUND', undefined, {
    nextActions: 'List the factors with GET /api/auth/mfa/factors and use one of their ids.',
  });

export const factorView = (f: repo.FactorRow) => ({
  id: f.id,
  type: f.type,
  friendlyName: f.friendlyName,
  status: f.status,
  createdAt: f.createdAt.toISOString(),
  updatedAt: f.updatedAt.toISOString(),
});

export type MfaService = ReturnType<typeof createMfaService>;

export function createMfaService(deps: KeyedDeps) {
  const issuer = new URL(deps.config.apiBaseUrl).host;

  return {
    async list(userId: string) {
      return (await repo.listFactors(deps.sql, { userId })).map(factorView);
    },

    /** A new unverified TOTP factor; a user with a second factor (TOTP or passkey) must be at aal2 to add one. */
    async enroll(caller: MfaCaller, friendlyName: string | undefined) {
      await requireAal2ForFactorChange(deps.sql, caller);
      const existing = await repo.listFactors(deps.sql, { userId: caller.userId });
      if (existing.length >= MAX_FACTORS_PER_OWNER) {
        throw new AppError('CONFLICT', `A user has at most ${MAX_FACTORS_PER_OWNER} factors.`, {
          nextActions: 'Remove a factor that is no longer used (DELETE /api/auth/mfa/factors/{id}).',
        });
      }
      const secret = newTotpSecret();
      const name = friendlyName ?? `TOTP ${existing.length + 1}`;
      const factor = await repo.insertFactor(deps.sql, {
        owner: { userId: caller.userId },
        friendlyName: name,
        secretSealed: deps.keyring.seal(secret),
        now: deps.clock.now(),
      });
      if (!factor) {
        throw new AppError('AUTH_MFA_FACTOR_NAME_CONFLICT', undefined, {
          nextActions: 'Choose another friendlyName (unique among your factors).',
        });
      }
      const uri = totpUri(secret, issuer, caller.email);
      return { ...factorView(factor), totp: { secret, uri, qrCode: await totpQrCode(uri) } };
    },

    /** A challenge of one of the caller's factors, answerable by this session until it expires. */
    async challenge(caller: MfaCaller, factorId: string) {
      const factor = await repo.findFactor(deps.sql, { userId: caller.userId }, factorId);
      if (!factor) throw factorNotFound();
      const now = deps.clock.now();
      if (factor.lockedUntil && factor.lockedUntil > now) throw factorLocked(factor.lockedUntil, now);
      const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000);
      const challenge = await repo.insertChallenge(deps.sql, { factorId, sessionId: caller.sessionId, now, expiresAt });
      return { id: challenge.id, type: 'totp' as const, expiresAt: challenge.expiresAt.toISOString() };
    },

    /**
     * Answers a challenge with a code: the session rises to aal2 (new tokens). The first verified
     * factor of a user also returns ten recovery codes, shown this once. A wrong code is counted
     * (committed) and then refused; nothing else changes.
     */
    async verify(
      caller: MfaCaller,
      factorId: string,
      input: { challengeId: string; code: string },
    ): Promise<{ tokens: IssuedTokens; user: User; recoveryCodes?: string[] }> {
      const now = deps.clock.now();
      const outcome = await withTx(deps.sql, async (tx) => {
        const factor = await repo.lockFactor(tx, { userId: caller.userId }, factorId);
        if (!factor) throw factorNotFound();
        const challenge = await repo.lockChallenge(tx, { ...input, factorId, sessionId: caller.sessionId });
        if (!challenge) {
          throw new AppError('NOT_FOUND', 'No challenge with this id for this factor and session.', {
            nextActions: 'Create a challenge with POST /api/auth/mfa/factors/{id}/challenge from this session.',
          });
        }
        if (challenge.verifiedAt !== null || challenge.expiresAt <= now) {
          throw new AppError('AUTH_MFA_CHALLENGE_EXPIRED', undefined, {
            nextActions: 'Create a new challenge and verify it within five minutes.',
          });
        }
        const check: CodeCheck = await checkTotpCode(tx, deps.keyring, factor, input.code, now);
        if (!check.ok) return check;
        await repo.markChallengeVerified(tx, challenge.id, now);
        let recoveryCodes: string[] | undefined;
        if ((await repo.recoveryCodeCounts(tx, caller.userId)).issued === 0) {
          recoveryCodes = newRecoveryCodes();
          const hashes = recoveryCodes.map((c) => recoveryCodeHash(caller.userId, c));
          await repo.replaceRecoveryCodes(tx, caller.userId, hashes, now);
        }
        const raised = await raiseSessionAssurance(
          { ...deps, sql: tx },
          { sessionId: caller.sessionId, userId: caller.userId, method: 'totp' },
        );
        return { ok: true as const, ...raised, ...(recoveryCodes ? { recoveryCodes } : {}) };
      });
      if (!outcome.ok) throw outcome.error;
      const { ok: _ok, ...result } = outcome;
      return result;
    },

    /** Removes one of the caller's factors; at aal2 whenever the user has a second factor (TOTP or passkey). */
    async unenroll(caller: MfaCaller, factorId: string): Promise<void> {
      await withTx(deps.sql, async (tx) => {
        const factors = await repo.listFactors(tx, { userId: caller.userId });
        if (!factors.some((f) => f.id === factorId)) throw factorNotFound();
        await requireAal2ForFactorChange(tx, caller);
        await repo.deleteFactor(tx, { userId: caller.userId }, factorId);
      });
    },

    /** The admin removes a user's factor (a lost phone); the user's recovery codes go with the last verified one. */
    async removeOfUser(userId: string, factorId: string): Promise<void> {
      if (!(await repo.deleteFactor(deps.sql, { userId }, factorId))) throw factorNotFound();
    },
  };
}
