// The OAuth module's face: its plugin, and the configured providers' names the auth configuration
// and the metadata overview show.
export { oauthPlugin } from './oauth.plugin.js';
export { configuredProviderNames } from './oauth-config.service.js';
// Browser sign-ins of other modules (SAML SSO) end the way OAuth's do: the account resolved by
// the same rules, then a svc_code for the same PKCE exchange.
export { resolveAccount, resolveAccountIn } from './oauth-accounts.js';
export { issueCodeRedirect } from './exchange-codes.js';
export type { ProviderProfile } from './providers.js';
export { createOAuthService, type OAuthService, type ProviderRef } from './oauth.service.js';
export { isBuiltInProvider } from './providers.js';
