// Signing in with a discoverable passkey, no email typed (options without allowCredentials, the
// browser's assertion, then a normal session with amr "webauthn"), and a passkey as a second
// factor: an aal1 session proves one of its user's passkeys and rises to aal2.
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { z } from 'zod';
import { createRateLimiter } from '../../core/rate-limiter.js';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import { raiseSessionAssurance } from './assurance.service.js';
import { consumeChallenge, issueChallenge, PROMPT_TIMEOUT_MS, verifyAssertion } from './passkey-ceremony.js';
import { listPasskeys } from './passkeys.repo.js';
import type { verifyPasskeyBodySchema } from './passkeys.schemas.js';
import { authLimits } from './rate-limits.js';
import type { SessionService } from './sessions.service.js';
import { findSessionUser, findUserById } from './users.repo.js';

export type PasskeySignInService = ReturnType<typeof createPasskeySignInService>;

export function createPasskeySignInService(
  deps: Pick<KeyedDeps, 'sql' | 'clock' | 'config' | 'keys' | 'hmacKeys'>,
  sessions: SessionService,
) {
  const rp = deps.config.webauthn;
  const limiter = createRateLimiter(deps.sql, deps.clock);

  return {
    /** Options for navigator.credentials.get() with no allowCredentials: the authenticator offers its passkeys. */
    async signInOptions(ip: string) {
      await limiter.hit(authLimits.passkeySignInPerIp, ip);
      const options = await generateAuthenticationOptions({
        rpID: rp.rpId,
        timeout: PROMPT_TIMEOUT_MS,
        userVerification: 'required',
      });
      const issued = await issueChallenge(deps.sql, deps.clock.now(), {
        purpose: 'sign-in',
        challenge: options.challenge,
        userId: null,
        sessionId: null,
      });
      // The options are JSON already (what navigator.credentials wants, after base64url decoding).
      return { ...issued, options: options as unknown as Record<string, unknown> };
    },

    /** Verifies the assertion (user verification required: the passkey is the only factor) and opens a session. */
    async signIn(body: z.output<typeof verifyPasskeyBodySchema>) {
      const now = deps.clock.now();
      const passkey = await withTx(deps.sql, async (tx) => {
        const challenge = await consumeChallenge(tx, body.challengeId, 'sign-in', now);
        return verifyAssertion(tx, rp, now, challenge, body.credential, true);
      });
      const user = await findUserById(deps.sql, passkey.userId);
      if (!user) throw new AppError('UNAUTHORIZED', 'The passkey was not accepted: its user no longer exists.');
      return { user, tokens: await sessions.open({ user }, 'webauthn') };
    },

    /** Options for a second-factor check: only this user's passkeys are allowed; bound to the session. */
    async assuranceOptions(caller: { userId: string; sessionId: string }) {
      if (!(await findSessionUser(deps.sql, caller.userId, caller.sessionId, deps.clock.now()))) {
        throw new AppError('UNAUTHORIZED', 'The session has ended.', { nextActions: 'Sign in again.' });
      }
      const passkeys = await listPasskeys(deps.sql, caller.userId);
      if (passkeys.length === 0) {
        throw new AppError('NOT_FOUND', 'This user has no passkey.', {
          nextActions: 'Register one with POST /api/auth/passkeys/registration-options, then POST /api/auth/passkeys.',
        });
      }
      const options = await generateAuthenticationOptions({
        rpID: rp.rpId,
        timeout: PROMPT_TIMEOUT_MS,
        userVerification: 'preferred',
        allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      });
      const issued = await issueChallenge(deps.sql, deps.clock.now(), {
        purpose: 'assurance',
        challenge: options.challenge,
        userId: caller.userId,
        sessionId: caller.sessionId,
      });
      return { ...issued, options: options as unknown as Record<string, unknown> };
    },

    /**
     * Verifies the assertion against the caller's own passkeys and raises the session to aal2 (amr
     * "webauthn"), all in one transaction: a failed step leaves the challenge, counter and session as they were.
     */
    async verifyAssurance(
      caller: { userId: string; sessionId: string },
      body: z.output<typeof verifyPasskeyBodySchema>,
    ) {
      const now = deps.clock.now();
      return withTx(deps.sql, async (tx) => {
        const challenge = await consumeChallenge(tx, body.challengeId, 'assurance', now);
        if (challenge.userId !== caller.userId || challenge.sessionId !== caller.sessionId) {
          throw new AppError('VALIDATION_ERROR', 'The passkey challenge is unknown, already used or expired.', {
            nextActions: 'Ask for new options with this session and run the passkey prompt again.',
          });
        }
        await verifyAssertion(tx, rp, now, challenge, body.credential, false);
        return raiseSessionAssurance(
          { ...deps, sql: tx },
          { sessionId: caller.sessionId, userId: caller.userId, method: 'webauthn' },
        );
      });
    },
  };
}
