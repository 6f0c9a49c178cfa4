// Supabase's auth API (GoTrue's wire, as supabase-js speaks it) at /auth/v1, as thin adapters over
// Plinth's auth and OAuth services; errors leave in GoTrue's shape with X-Supabase-Api-Version.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import type { AuthServices } from '../../auth/index.js';
import { configuredProviderNames } from '../../oauth/index.js';
import { createSamlSignInService } from '../../sso/index.js';
import { adminRoutes } from './admin.routes.js';
import { createGoTrueAdmin } from './gotrue-admin.service.js';
import { createGoTrueAuth } from './gotrue-auth.service.js';
import { createGoTrueMfa } from './gotrue-mfa.service.js';
import { createGoTrueLinks } from './gotrue-links.service.js';
import { linkRoutes } from './links.routes.js';
import { API_VERSION, API_VERSION_HEADER, GoTrueError, gotrueErrorHandler } from './gotrue-errors.js';
import { metaRoutes } from './meta.routes.js';
import { mfaRoutes } from './mfa.routes.js';
import { ssoRoutes } from './sso.routes.js';
import { createOAuthAdapter } from './oauth.routes.js';
import { sessionRoutes } from './session.routes.js';

export function supabaseAuthPlugin(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  const oauth = createOAuthAdapter(deps, auth);
  const mfa = createGoTrueMfa(deps, auth);
  const links = createGoTrueLinks(deps, auth);
  const providers = async () => {
    const names = await configuredProviderNames(deps.sql);
    return [...names.builtIn, ...names.custom];
  };
  return async (app) => {
    await app.register(
      async (scope) => {
        scope.setErrorHandler(gotrueErrorHandler);
        scope.setNotFoundHandler((request, reply) =>
          gotrueErrorHandler(
            new GoTrueError(
              404,
              'not_found',
              `${request.method} ${request.url.split('?')[0]} is not an auth endpoint.`,
            ) as never,
            request,
            reply,
          ),
        );
        scope.addHook('onSend', (_request, reply, payload, done) => {
          reply.header(API_VERSION_HEADER, API_VERSION);
          done(null, payload);
        });
        await scope.register(sessionRoutes(createGoTrueAuth(deps, auth, mfa), oauth.exchange, links));
        await scope.register(mfaRoutes(mfa));
        await scope.register(ssoRoutes(createSamlSignInService(deps)));
        await scope.register(oauth.routes);
        await scope.register(adminRoutes(deps.config, createGoTrueAdmin(auth)));
        await scope.register(metaRoutes(deps, providers));
        await scope.register(linkRoutes(links));
      },
      { prefix: '/auth/v1' },
    );
  };
}
