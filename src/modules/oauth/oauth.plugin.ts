// Registers the OAuth routes: provider configuration (admin), the sign-in flows with PKCE and
// native ID-token sign-in.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import type { SessionService } from '../auth/index.js';
import { createIdTokenService } from './id-token.service.js';
import { oauthConfigRoutes } from './oauth-config.routes.js';
import { createOAuthConfigService } from './oauth-config.service.js';
import { oauthLinkRoutes } from './oauth-link.routes.js';
import { oauthRoutes } from './oauth.routes.js';
import { createOAuthService } from './oauth.service.js';

export function oauthPlugin(deps: Deps, sessions: SessionService): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(oauthConfigRoutes(createOAuthConfigService(deps)));
    const oauth = createOAuthService(deps, sessions);
    await app.register(oauthRoutes(deps, oauth, createIdTokenService(deps, sessions)));
    await app.register(oauthLinkRoutes(oauth));
  };
}
