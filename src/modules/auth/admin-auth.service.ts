// The project admin's credentials (from the environment, or generated on first start) and the
// admin's sign-in, its failed attempts limited per IP and per account like a user's.
import { AppError } from '../../core/errors.js';
import { safeEqual } from '../../core/ids.js';
import { type KeyedDeps, RESERVED, readSealedSecret } from '../secrets/index.js';
import { raiseAdminSessionAssurance } from './assurance.service.js';
import { authLimits } from './rate-limits.js';
import { createSignInAttempts } from './sign-in-attempts.js';
import { adminSubjectOf, type SessionService } from './sessions.service.js';
import type { IssuedTokens } from './tokens.js';

export const DEFAULT_ADMIN_EMAIL = 'admin@plinth.local';

export function adminCredentials(deps: Pick<KeyedDeps, 'config' | 'keys'>): { email: string; password: string } {
  return {
    email: deps.config.adminEmail ?? DEFAULT_ADMIN_EMAIL,
    password: deps.config.adminPassword ?? deps.keys.storedAdminPassword,
  };
}

export function createAdminAuthService(
  deps: Pick<KeyedDeps, 'config' | 'keys' | 'keyring' | 'hasher' | 'sql' | 'clock' | 'hmacKeys'>,
  sessions: SessionService,
  /** MFA (issue 34): whether a TOTP code was required and right (throws when required and wrong). */
  checkSecondFactor: (totpCode: string | undefined) => Promise<boolean> = async () => false,
) {
  const credentials = adminCredentials(deps);
  const attempts = createSignInAttempts(deps.sql, deps.clock, {
    perIp: authLimits.failedAdminSignInsPerIp,
    perAccount: authLimits.failedAdminSignInsPerAccount,
    lockedAccountHint:
      'Meanwhile the API key still works (the admin may also lower the limit: PUT /api/auth/rate-limits).',
  });
  // One counter for the admin account, whatever email a guess names.
  const ADMIN_ACCOUNT = 'admin';
  const subject = adminSubjectOf(credentials.email);
  // Hashed once per password, so a sign-in costs one argon2 verification like a user's.
  let passwordHash = deps.hasher.hash(credentials.password);
  /** The sealed stored password the hash was made from (`plinth admin reset-password` replaces it). */
  let hashedCiphertext: string | undefined;

  /** The hash of the password in force: a stored one changed by another process is hashed anew. */
  async function currentPasswordHash(): Promise<string> {
    if (deps.config.adminPassword !== undefined) return passwordHash;
    const sealed = await readSealedSecret(deps.sql, RESERVED.adminPassword);
    if (sealed !== undefined && sealed !== hashedCiphertext) {
      const opened = deps.keyring.open(sealed);
      hashedCiphertext = sealed;
      passwordHash = opened === credentials.password ? passwordHash : deps.hasher.hash(opened);
    }
    return passwordHash;
  }

  return {
    subject,
    username: credentials.email,
    async signIn(email: string, password: string, ip: string, totpCode?: string): Promise<IssuedTokens> {
      await attempts.count(ADMIN_ACCOUNT, ip);
      const passwordOk = await deps.hasher.verify(await currentPasswordHash(), password);
      if (!(safeEqual(email, credentials.email) && passwordOk)) {
        throw new AppError('UNAUTHORIZED', 'Invalid admin credentials.', {
          nextActions: 'Use ADMIN_EMAIL and ADMIN_PASSWORD from the server configuration.',
        });
      }
      await attempts.forgive(ADMIN_ACCOUNT, ip);
      if (!(await checkSecondFactor(totpCode))) return sessions.open({ adminSubject: subject });
      const opened = await sessions.open({ adminSubject: subject });
      return raiseAdminSessionAssurance(deps, { sessionId: opened.sessionId, adminSubject: subject, method: 'totp' });
    },
    /** Admin sessions of a former admin email stop refreshing when the email changes. */
    isCurrentSubject: (candidate: string) => candidate === subject,
  };
}
