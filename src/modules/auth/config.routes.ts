// The authentication configuration: public settings for clients, full settings for the admin.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authConfigSchema, authConfigUpdateSchema, publicConfigSchema } from './auth.schemas.js';
import type { AuthConfigService } from './config.service.js';

const tags = ['auth'];
const publicAccess = { access: 'public' as const };

export function configRoutes(authConfig: AuthConfigService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/public-config', {
      config: publicAccess,
      schema: { tags, summary: 'Public authentication settings', response: { 200: publicConfigSchema } },
      handler: () => authConfig.publicConfig(),
    });

    app.get('/api/auth/config', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Authentication configuration',
        security: [{ bearerAuth: [] }],
        response: { 200: authConfigSchema },
      },
      handler: () => authConfig.config(),
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
      handler: (request) => authConfig.update(request.body),
    });
  };
}
