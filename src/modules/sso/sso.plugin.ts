// Registers SAML single sign-on: the admin's identity providers and the public sign-in routes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { createSamlSignInService, serviceProviderMetadata } from './saml-sign-in.service.js';
import { ssoAdminRoutes } from './sso-admin.routes.js';
import { createSsoProvidersService } from './sso-providers.service.js';
import { ssoRoutes } from './sso.routes.js';

export function ssoPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    const metadata = serviceProviderMetadata(deps.config.apiBaseUrl);
    const signIn = createSamlSignInService(deps);
    await app.register(ssoAdminRoutes(createSsoProvidersService(deps), signIn));
    await app.register(ssoRoutes(signIn, () => metadata));
  };
}
