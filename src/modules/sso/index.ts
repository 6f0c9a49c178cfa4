// The SSO module's face: its plugin (SAML 2.0 identity providers and sign-in).
export { ssoPlugin } from './sso.plugin.js';
