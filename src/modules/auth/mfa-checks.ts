// The rules a TOTP code and a recovery code are checked by: a code's time step is used at most
// once per factor, five wrong codes lock a factor for five minutes, challenges live five minutes;
// recovery codes are random, single-use, and stored only as SHA-256.
import { randomInt } from 'node:crypto';
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { sha256 } from '../../core/ids.js';
import type { Keyring } from '../../core/keyring.js';
import type { Limit } from '../../core/rate-limiter.js';
import { matchingStep } from './mfa-totp.js';
import { type LockedFactor, recordFactorFailure, recordFactorSuccess } from './mfa.repo.js';

export const MAX_FACTOR_FAILURES = 5;
export const FACTOR_LOCK_SECONDS = 300;
export const CHALLENGE_TTL_SECONDS = 300;
export const MAX_FACTORS_PER_OWNER = 10;
export const RECOVERY_CODE_COUNT = 10;

/** Wrong recovery codes per user: five, then fifteen minutes of refusal. */
export const recoveryCodeFailures: Limit = {
  name: 'mfa-recovery-failure:user',
  max: 5,
  windowSeconds: 900,
  lockout: true,
  message: 'Too many wrong recovery codes. Try again later.',
};

export const factorLocked = (until: Date, now: Date) => {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return new AppError('AUTH_MFA_FACTOR_LOCKED', undefined, {
    nextActions: `Wait ${seconds} seconds, then try a new code (or use a recovery code).`,
    headers: { 'retry-after': String(seconds) },
  });
};

export const wrongCode = () =>
  new AppError('AUTH_MFA_VERIFICATION_FAILED', 'Invalid MFA code.', {
    nextActions: 'Enter the current code from the authenticator app; each code is accepted once.',
  });

export type CodeCheck = { ok: true } | { ok: false; error: AppError };

/**
 * Checks a TOTP code against a factor locked by `db`'s transaction, and records the outcome
 * (the step used, or one more failure). A failure is returned, not thrown, so the caller can
 * commit the count before answering.
 */
export async function checkTotpCode(
  db: Queryable,
  keyring: Keyring,
  factor: LockedFactor,
  code: string,
  now: Date,
): Promise<CodeCheck> {
  if (factor.lockedUntil && factor.lockedUntil > now)
    return { ok: false, error: factorLocked(factor.lockedUntil, now) };
  const step = matchingStep(keyring.open(factor.secretSealed), code, now);
  // A code of a step already used (or older) is refused: a seen code cannot be replayed.
  if (step === null || (factor.lastUsedStep !== null && step <= Number(factor.lastUsedStep))) {
    const lockUntil = new Date(now.getTime() + FACTOR_LOCK_SECONDS * 1000);
    const { locked } = await recordFactorFailure(db, factor.id, { maxFailures: MAX_FACTOR_FAILURES, lockUntil, now });
    return { ok: false, error: locked ? factorLocked(lockUntil, now) : wrongCode() };
  }
  await recordFactorSuccess(db, factor.id, step, now);
  return { ok: true };
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten fresh recovery codes (xxxxx-xxxxx, ~49 bits each). */
export function newRecoveryCodes(): string[] {
  const part = () => Array.from({ length: 5 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${part()}-${part()}`);
}

/** The stored form of a recovery code: case, spaces and dashes do not matter. */
export const recoveryCodeHash = (userId: string, code: string): Buffer =>
  sha256(`${userId}:${code.toLowerCase().replace(/[\s-]/g, '')}`);
