// The steps every passkey ceremony shares: issuing a stored single-use challenge, taking it back,
// and checking an assertion (signature, origin, RP id, counter) against a stored passkey.
import { randomUUID } from 'node:crypto';
import { type AuthenticationResponseJSON, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { isoBase64URL, isoUint8Array } from '@simplewebauthn/server/helpers';
import type { Config } from '../../config.js';
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import {
  type ChallengePurpose,
  type ChallengeRow,
  insertChallenge,
  lockPasskeyByCredentialId,
  type PasskeyRow,
  recordPasskeyUse,
  takeChallenge,
} from './passkeys.repo.js';
import type { Passkey } from './passkeys.schemas.js';

/** How long a challenge stays good: the browser's prompt (60 s) plus room for a slow user. */
export const CHALLENGE_TTL_SECONDS = 300;
/** The browser's own timeout for the prompt. */
export const PROMPT_TIMEOUT_MS = 60_000;

export type RelyingParty = Config['webauthn'];

/** The user handle a passkey carries: the user id's bytes (a discoverable sign-in reads it back). */
export const userHandleOf = (userId: string) => isoUint8Array.fromUTF8String(userId);

export const passkeyView = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  credentialId: row.credentialId,
  transports: row.transports,
  deviceType: row.deviceType,
  backedUp: row.backedUp,
  aaguid: row.aaguid,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

export async function issueChallenge(
  db: Queryable,
  now: Date,
  c: { purpose: ChallengePurpose; challenge: string; userId: string | null; sessionId: string | null; name?: string },
) {
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000);
  await insertChallenge(db, {
    id,
    purpose: c.purpose,
    challenge: c.challenge,
    userId: c.userId,
    sessionId: c.sessionId,
    passkeyName: c.name ?? null,
    now,
    expiresAt,
  });
  return { challengeId: id, expiresAt: expiresAt.toISOString() };
}

/** Takes a live challenge; unknown, used, expired or of another ceremony: 400. */
export async function consumeChallenge(
  db: Queryable,
  id: string,
  purpose: ChallengePurpose,
  now: Date,
): Promise<ChallengeRow> {
  const row = await takeChallenge(db, id, purpose, now);
  if (!row) {
    throw new AppError('VALIDATION_ERROR', 'The passkey challenge is unknown, already used or expired.', {
      nextActions: 'Ask for new options and run the passkey prompt again.',
    });
  }
  return row;
}

const refused = (reason: string) =>
  new AppError('UNAUTHORIZED', `The passkey was not accepted: ${reason}`, {
    nextActions: 'Ask for new options and try again, or sign in another way.',
  });

/**
 * Checks an assertion for a challenge and moves the passkey's counter; `userId`: the passkey must
 * be this user's (second factor), else any user's (discoverable sign-in). Run inside a transaction:
 * the passkey row stays locked until it ends, so two assertions never pass with one counter value.
 */
export async function verifyAssertion(
  db: Queryable,
  rp: RelyingParty,
  now: Date,
  challenge: ChallengeRow,
  credential: AuthenticationResponseJSON,
  requireUserVerification: boolean,
): Promise<PasskeyRow> {
  const passkey = await lockPasskeyByCredentialId(db, credential.id);
  if (!passkey) throw refused('this passkey is not registered (it may have been removed).');
  if (challenge.userId !== null && passkey.userId !== challenge.userId) {
    throw refused('this passkey belongs to another user.');
  }
  const handle = credential.response.userHandle;
  if (handle && handle !== isoBase64URL.fromBuffer(userHandleOf(passkey.userId))) {
    throw refused('the user handle does not match the passkey.');
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/counter/i.test(message)) {
      throw refused(`its signature counter went backwards (${message}); the authenticator may have been cloned.`);
    }
    throw refused(message);
  }
  if (!verified.verified) throw refused('the signature does not verify.');
  const info = verified.authenticationInfo;
  await recordPasskeyUse(db, { id: passkey.id, counter: info.newCounter, backedUp: info.credentialBackedUp, now });
  return { ...passkey, counter: info.newCounter, lastUsedAt: now };
}
