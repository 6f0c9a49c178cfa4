// One-time secrets sent by email: 6-digit codes and 64-hex link tokens. Only an HMAC of each is
// stored (a leaked table does not reveal codes); checks and consumption happen in PostgreSQL.
import { randomInt } from 'node:crypto';
import { createHmac } from 'node:crypto';
import type { Queryable } from '../../core/db.js';
import { randomHex } from '../../core/ids.js';
import type { Deps } from '../../deps.js';
import {
  consumeEmailSecret,
  peekLinkSecret,
  storeEmailSecret,
  type Consumption,
  type SecretPurpose,
} from './email-secrets.repo.js';

export const MAX_CODE_ATTEMPTS = 3;
export const LINK_TOKEN = /^[a-fA-F0-9]{64}$/;

export function createEmailSecrets(deps: Pick<Deps, 'clock' | 'hmacKeys'>) {
  const hmac = (value: string) => createHmac('sha256', deps.hmacKeys.emailSecrets).update(value).digest();
  // Codes are short, so their hash includes the email: equal codes of two people never collide.
  const codeHash = (purpose: SecretPurpose, email: string, code: string) => hmac(`code:${purpose}:${email}:${code}`);
  const tokenHash = (purpose: SecretPurpose, token: string) => hmac(`link:${purpose}:${token.toLowerCase()}`);
  const expiry = (ttlSeconds: number) => new Date(deps.clock.now().getTime() + ttlSeconds * 1000);

  return {
    /** Issues a new code for (email, purpose), replacing any earlier one. */
    async issueCode(db: Queryable, email: string, purpose: SecretPurpose, ttlSeconds: number): Promise<string> {
      const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
      await storeEmailSecret(db, {
        email,
        purpose,
        kind: 'code',
        secretHash: codeHash(purpose, email, code),
        redirectTo: null,
        expiresAt: expiry(ttlSeconds),
        now: deps.clock.now(),
      });
      return code;
    },

    /** Issues a new link token for (email, purpose), remembering where the link leads. */
    async issueToken(
      db: Queryable,
      email: string,
      purpose: SecretPurpose,
      ttlSeconds: number,
      redirectTo: string | null,
    ): Promise<{ token: string; expiresAt: Date }> {
      const token = randomHex(32);
      const expiresAt = expiry(ttlSeconds);
      await storeEmailSecret(db, {
        email,
        purpose,
        kind: 'link',
        secretHash: tokenHash(purpose, token),
        redirectTo,
        expiresAt,
        now: deps.clock.now(),
      });
      return { token, expiresAt };
    },

    consumeCode: (db: Queryable, email: string, purpose: SecretPurpose, code: string): Promise<Consumption> =>
      consumeEmailSecret(db, {
        email,
        purpose,
        secretHash: codeHash(purpose, email, code),
        now: deps.clock.now(),
        maxAttempts: MAX_CODE_ATTEMPTS,
      }),

    consumeToken: (db: Queryable, purpose: SecretPurpose, token: string): Promise<Consumption> =>
      consumeEmailSecret(db, {
        email: null,
        purpose,
        secretHash: tokenHash(purpose, token),
        now: deps.clock.now(),
        maxAttempts: MAX_CODE_ATTEMPTS,
      }),

    peekToken: (db: Queryable, purpose: SecretPurpose, token: string) =>
      peekLinkSecret(db, purpose, tokenHash(purpose, token), deps.clock.now()),
  };
}
