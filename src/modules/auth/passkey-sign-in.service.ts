// Signing in with a discoverable passkey, no email typed: options without allowCredentials, the
// browser's assertion, then a normal session of the passkey's user.
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { z } from 'zod';
import { createRateLimiter } from '../../core/rate-limiter.js';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import { consumeChallenge, issueChallenge, PROMPT_TIMEOUT_MS, verifyAssertion } from './passkey-ceremony.js';
import type { verifyPasskeyBodySchema } from './passkeys.schemas.js';
import { authLimits } from './rate-limits.js';
import type { SessionService } from './sessions.service.js';
import { findUserById } from './users.repo.js';

export type PasskeySignInService = ReturnType<typeof createPasskeySignInService>;

export function createPasskeySignInService(
  deps: Pick<KeyedDeps, 'sql' | 'clock' | 'config'>,
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
      return { user, tokens: await sessions.open({ user }) };
    },
  };
}
