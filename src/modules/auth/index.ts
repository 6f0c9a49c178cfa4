// The auth module's face: its plugin, its services, and what the OAuth and metadata modules call.
export { authPlugin } from './auth.plugin.js';
export { createAuthServices, type AuthServices } from './auth-services.js';
export { adminCredentials, DEFAULT_ADMIN_EMAIL } from './admin-auth.service.js';
export { authLimits } from './rate-limits.js';
export { SESSION_REVOKED_CHANNEL, startRevokedSessions } from './revoked-sessions.js';
export { createAdminSessionBinding } from './admin-session-binding.js';
export { readAuthConfig, type OAuthProviderNames } from './config.service.js';
export { claimUnverifiedAccount, findAccountByEmail, findUserById } from './accounts.service.js';
export { clientTypeSchema, sessionResponseSchema } from './auth.schemas.js';
export { assertRedirectAllowed, withParams } from './redirects.js';
export { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';
export type { SessionService } from './sessions.service.js';
export { raiseSessionAssurance, type SecondFactorMethod } from './assurance.service.js';
export { emailSchema, type User } from './auth.schemas.js';
export type { SignInMethod } from './tokens.js';
// Anonymous users and linked identities (issue 34).
export { linkProviderIdentity, type Identity } from './identities.service.js';
export { linkedResponseSchema } from './identities.schemas.js';
// Admin-generated sign-in links and invitations (issue 35).
export type { LinkFlow } from './email-links.service.js';
