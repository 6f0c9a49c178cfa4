// The OAuth module's face: its plugin and what the auth configuration and metadata read.
export { oauthPlugin } from './oauth.plugin.js';
export { configuredProviderNames } from './oauth-providers.js';
export { listCustomConfigs, listOAuthConfigs } from './oauth-config.repo.js';
