// The OAuth module's face: its plugin, and the configured providers' names the auth configuration
// and the metadata overview show.
export { oauthPlugin } from './oauth.plugin.js';
export { configuredProviderNames } from './oauth-config.service.js';
export { createOAuthService, type OAuthService, type ProviderRef } from './oauth.service.js';
export { isBuiltInProvider } from './providers.js';
