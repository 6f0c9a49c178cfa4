// The admin's view and control of the public routes' rate limits, changed at run time: every
// server reads the stored values on its next check.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RateLimitSettingsService } from './rate-limits.service.js';
import { rateLimitsSchema, rateLimitsUpdateSchema } from './rate-limits.schemas.js';

const tags = ['auth'];
const security = [{ bearerAuth: [] }];

export function rateLimitRoutes(settings: RateLimitSettingsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/rate-limits', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The rate limits of the public auth routes, with their defaults',
        security,
        response: { 200: rateLimitsSchema },
      },
      handler: () => settings.list(),
    });

    app.put('/api/auth/rate-limits', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Set limits ({name, max, windowSeconds}) or restore defaults ({name, reset: true}); applies at once on every server',
        security,
        body: rateLimitsUpdateSchema,
        response: { 200: rateLimitsSchema },
      },
      handler: (request) => settings.update(request.body),
    });
  };
}
