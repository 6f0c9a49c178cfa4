// The SSO module's face: its plugin (SAML 2.0 identity providers and sign-in).
export { ssoPlugin } from './sso.plugin.js';
// The SAML sign-in service, for the Supabase /auth/v1/sso adapter (issue 35).
export { createSamlSignInService, type SamlSignInService } from './saml-sign-in.service.js';
