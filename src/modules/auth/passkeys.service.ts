// A signed-in user's passkeys: registering one (options, then the browser's answer), listing,
// renaming and removing them; and the admin's view of a user's passkeys.
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { z } from 'zod';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import { requireAal2ForFactorChange } from './assurance.service.js';
import { consumeChallenge, issueChallenge, PROMPT_TIMEOUT_MS, passkeyView, userHandleOf } from './passkey-ceremony.js';
import { deletePasskey, insertPasskey, listPasskeys, renamePasskey } from './passkeys.repo.js';
import type { registerPasskeyBodySchema } from './passkeys.schemas.js';
import type { AssuranceLevel } from './tokens.js';
import { findSessionUser, findUserById } from './users.repo.js';

export type PasskeyService = ReturnType<typeof createPasskeyService>;

/** The signed-in user calling (from the access token). */
export interface PasskeyCaller {
  userId: string;
  sessionId: string;
  aal: AssuranceLevel;
}

const notFound = () => new AppError('NOT_FOUND', 'Passkey not found.');

export function createPasskeyService(deps: Pick<KeyedDeps, 'sql' | 'clock' | 'config'>) {
  const rp = deps.config.webauthn;

  async function sessionUser(userId: string, sessionId: string) {
    const user = await findSessionUser(deps.sql, userId, sessionId, deps.clock.now());
    if (!user) throw new AppError('UNAUTHORIZED', 'The session has ended.', { nextActions: 'Sign in again.' });
    return user;
  }

  return {
    relyingParty: () => ({ rpId: rp.rpId, rpName: rp.rpName, origins: rp.origins }),

    /**
     * Options for navigator.credentials.create(): a discoverable credential, verified user. A user
     * with a second factor already (TOTP or passkey) must be at aal2 to add one.
     */
    async registrationOptions(caller: PasskeyCaller, name?: string) {
      const { userId, sessionId } = caller;
      const user = await sessionUser(userId, sessionId);
      await requireAal2ForFactorChange(deps.sql, caller);
      const existing = await listPasskeys(deps.sql, userId);
      const displayName = typeof user.profile.name === 'string' ? user.profile.name : (user.email ?? user.id);
      const options = await generateRegistrationOptions({
        rpName: rp.rpName,
        rpID: rp.rpId,
        userName: user.email ?? user.id,
        userDisplayName: displayName,
        userID: userHandleOf(userId),
        timeout: PROMPT_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      const issued = await issueChallenge(deps.sql, deps.clock.now(), {
        purpose: 'registration',
        challenge: options.challenge,
        userId,
        sessionId,
        name,
      });
      // The options are JSON already (what navigator.credentials wants, after base64url decoding).
      return { ...issued, options: options as unknown as Record<string, unknown> };
    },

    /** Verifies the browser's answer and stores the passkey; the challenge is used up only on success. */
    async register(userId: string, body: z.output<typeof registerPasskeyBodySchema>) {
      const now = deps.clock.now();
      return withTx(deps.sql, async (tx) => {
        const challenge = await consumeChallenge(tx, body.challengeId, 'registration', now);
        if (challenge.userId !== userId) {
          throw new AppError('VALIDATION_ERROR', 'The passkey challenge is unknown, already used or expired.', {
            nextActions: 'Ask for new options and run the passkey prompt again.',
          });
        }
        let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo'];
        try {
          const verified = await verifyRegistrationResponse({
            response: body.credential,
            expectedChallenge: challenge.challenge,
            expectedOrigin: rp.origins,
            expectedRPID: rp.rpId,
            requireUserVerification: true,
          });
          info = verified.registrationInfo;
        } catch (err) {
          throw new AppError('VALIDATION_ERROR', `The passkey could not be registered: ${(err as Error).message}`, {
            nextActions: 'Ask for new options and run the passkey prompt again.',
          });
        }
        if (!info) throw new AppError('VALIDATION_ERROR', 'The passkey could not be verified.');
        const { credential } = info;
        const row = await insertPasskey(tx, {
          userId,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey),
          counter: credential.counter,
          transports: credential.transports ?? body.credential.response.transports ?? [],
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          aaguid: info.aaguid,
          name: body.name ?? challenge.passkeyName ?? `Passkey of ${now.toISOString().slice(0, 10)}`,
          now,
        });
        if (!row) throw new AppError('CONFLICT', 'This passkey is already registered.');
        return passkeyView(row);
      });
    },

    async list(userId: string) {
      return { data: (await listPasskeys(deps.sql, userId)).map(passkeyView) };
    },

    async rename(userId: string, passkeyId: string, name: string) {
      const row = await renamePasskey(deps.sql, userId, passkeyId, name);
      if (!row) throw notFound();
      return passkeyView(row);
    },

    /** Removes one of the caller's passkeys: a second factor, so at aal2. */
    async remove(caller: PasskeyCaller, passkeyId: string) {
      await requireAal2ForFactorChange(deps.sql, caller);
      return this.removeOfUser(caller.userId, passkeyId);
    },

    /** The admin removes a user's passkey (a lost device). */
    async removeOfUser(userId: string, passkeyId: string) {
      if (!(await deletePasskey(deps.sql, userId, passkeyId))) throw notFound();
      return { success: true, message: 'Passkey removed.' };
    },

    /** The admin's view: a user's passkeys (404 for an unknown user). */
    async listOfUser(userId: string) {
      if (!(await findUserById(deps.sql, userId))) throw new AppError('AUTH_USER_NOT_FOUND');
      return this.list(userId);
    },
  };
}
