// Builds the authentication services once per app, from the app's dependencies: the one place
// that wires sessions, email flows, users and admin sign-in together (not a service itself).
import type { Mailer } from '../email/index.js';
import type { KeyedDeps } from '../secrets/index.js';
import { createAdminAuthService } from './admin-auth.service.js';
import { createAnonymousService } from './anonymous.service.js';
import { createIdentityService } from './identities.service.js';
import { createPasskeySignInService } from './passkey-sign-in.service.js';
import { createPasskeyService } from './passkeys.service.js';
import { createEmailAuthService, type QuietFailureLog } from './email-auth.service.js';
import { createEmailLinkService } from './email-links.service.js';
import type { RevokedSessions } from './revoked-sessions.js';
import { createAdminMfaService } from './mfa-admin.service.js';
import { createMfaRecoveryService } from './mfa-recovery.service.js';
import { createMfaService } from './mfa.service.js';
import { createSessionService } from './sessions.service.js';
import { createUserService } from './users.service.js';

export type AuthServices = ReturnType<typeof createAuthServices>;

export function createAuthServices(
  deps: KeyedDeps,
  mailer: Mailer,
  logQuietFailure: QuietFailureLog,
  revoked?: Pick<RevokedSessions, 'add'>,
) {
  const sessions = createSessionService(deps, revoked);
  const email = createEmailAuthService(deps, sessions, mailer, logQuietFailure);
  // The admin sign-in asks the admin's MFA whether a TOTP code is required (issue 34).
  const admin = createAdminAuthService(deps, sessions, (code) => adminMfa.checkSignInCode(code));
  const adminMfa = createAdminMfaService(deps, { subject: admin.subject, username: admin.username });
  return {
    sessions,
    email,
    users: createUserService(deps, sessions, email),
    admin,
    // Multi-factor authentication (issue 34).
    mfa: createMfaService(deps),
    mfaRecovery: createMfaRecoveryService(deps),
    passkeys: createPasskeyService(deps),
    passkeySignIn: createPasskeySignInService(deps, sessions),
    adminMfa,
    anonymous: createAnonymousService(deps, sessions, email),
    identities: createIdentityService(deps),
    // Links an admin generates and invitations (Supabase's generate_link, issue 35).
    links: createEmailLinkService(deps, sessions, mailer),
  };
}
