// Authenticator assurance levels (aal1 → aal2): the one function that raises a live session after
// a second factor (TOTP, recovery code, passkey) and reissues its tokens. The session row keeps
// aal2 and the methods (amr), so later refreshes keep them too.
import { epochSeconds } from '../../core/clock.js';
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import type { User } from './auth.schemas.js';
import { raiseSession, type AssuranceOwner, userHasSecondFactor } from './assurance.repo.js';
import { accessClaimsOf, createTokens, type IssuedTokens } from './tokens.js';

/** A second factor's amr method (GoTrue's names; 'webauthn' is the passkeys engineer's). */
export type SecondFactorMethod = 'totp' | 'recovery' | 'webauthn';

/** What raising needs; `sql` may be a transaction of the caller's, so the raise commits with its checks. */
export type AssuranceDeps = Pick<KeyedDeps, 'clock' | 'config' | 'keys' | 'hmacKeys'> & { sql: Queryable };

export const needsAal2 = () =>
  new AppError('AUTH_INSUFFICIENT_AAL', undefined, {
    nextActions:
      'Raise the session to aal2 first: verify a TOTP factor (POST /api/auth/mfa/factors/{id}/challenge, then /verify), prove a passkey (POST /api/auth/passkeys/assurance-options, then /api/auth/passkeys/assurance) or use a recovery code.',
  });

/**
 * Refuses a change to a user's second factors from a session below aal2 while the user has one:
 * otherwise a stolen password alone could add a factor of its own, or remove the owner's.
 */
export async function requireAal2ForFactorChange(
  db: Queryable,
  caller: { userId: string; aal: 'aal1' | 'aal2' },
): Promise<void> {
  if (caller.aal !== 'aal2' && (await userHasSecondFactor(db, caller.userId))) throw needsAal2();
}

const sessionEnded = () =>
  new AppError('UNAUTHORIZED', 'The session has ended.', { nextActions: 'Sign in again, then verify the factor.' });

async function raise(
  deps: AssuranceDeps,
  sessionId: string,
  owner: AssuranceOwner,
  method: SecondFactorMethod,
): Promise<{ tokens: IssuedTokens; user: User | null }> {
  const tokens = createTokens(deps);
  const now = deps.clock.now();
  const refreshToken = tokens.newRefreshToken();
  const raised = await raiseSession(deps.sql, {
    sessionId,
    owner,
    entry: { method, timestamp: epochSeconds(now) },
    tokenHash: tokens.hash(refreshToken),
    now,
  });
  if (!raised) throw sessionEnded();
  const assurance = { aal: 'aal2' as const, amr: raised.amr };
  const claims =
    'userId' in owner
      ? raised.user && accessClaimsOf({ user: raised.user }, sessionId, assurance)
      : accessClaimsOf({ adminSubject: owner.adminSubject }, sessionId, assurance);
  if (!claims) throw sessionEnded();
  const accessToken = await tokens.accessToken(claims);
  return { tokens: tokens.issued(sessionId, accessToken, refreshToken), user: raised.user };
}

/**
 * Raises a user's live session to aal2 after `method` succeeded: a new access token (aal "aal2",
 * amr [..., {method, timestamp}]) and a new refresh token (the session's earlier ones retire).
 * Throws UNAUTHORIZED when the session is not a live session of this user (nothing changes).
 */
export async function raiseSessionAssurance(
  deps: AssuranceDeps,
  input: { sessionId: string; userId: string; method: SecondFactorMethod },
): Promise<{ tokens: IssuedTokens; user: User }> {
  const { tokens, user } = await raise(deps, input.sessionId, { userId: input.userId }, input.method);
  if (!user) throw sessionEnded();
  return { tokens, user };
}

/** The same for a project admin session (the admin's own TOTP factor). */
export async function raiseAdminSessionAssurance(
  deps: AssuranceDeps,
  input: { sessionId: string; adminSubject: string; method: SecondFactorMethod },
): Promise<IssuedTokens> {
  return (await raise(deps, input.sessionId, { adminSubject: input.adminSubject }, input.method)).tokens;
}
