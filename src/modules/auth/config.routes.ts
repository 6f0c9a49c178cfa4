// The authentication configuration: public settings for clients, full settings for the admin.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { authConfigSchema, authConfigUpdateSchema, publicConfigSchema } from './auth.schemas.js';
import { readAuthConfig, updateAuthConfig } from './config.repo.js';

const tags = ['auth'];

/** The OAuth providers the admin configured (built-in names, custom keys): the OAuth module answers. */
export type OAuthProviderNames = () => Promise<{ builtIn: string[]; custom: string[] }>;

export function configRoutes(deps: Deps, oauthProviders: OAuthProviderNames): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/public-config', {
      schema: { tags, summary: 'Public authentication settings', response: { 200: publicConfigSchema } },
      handler: async () => {
        const [{ id: _id, createdAt: _c, updatedAt: _u, allowedRedirectUrls: _r, ...config }, providers] =
          await Promise.all([readAuthConfig(deps.sql), oauthProviders()]);
        // Clients show sign-in buttons for what the admin configured: built-in names and custom keys.
        return { ...config, oAuthProviders: providers.builtIn, customOAuthProviders: providers.custom };
      },
    });

    app.get('/api/auth/config', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Authentication configuration',
        security: [{ bearerAuth: [] }],
        response: { 200: authConfigSchema },
      },
      handler: () => readAuthConfig(deps.sql),
    });

    app.put('/api/auth/config', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update any subset of the authentication configuration',
        security: [{ bearerAuth: [] }],
        body: authConfigUpdateSchema,
        response: { 200: authConfigSchema },
      },
      handler: (request) => updateAuthConfig(deps.sql, request.body, deps.clock.now()),
    });
  };
}
