// The platform's keys as clients and admins fetch them: the API key and anon key (admin only)
// and the public keys that verify access tokens (JWKS, public: the current key and retired ones
// still in their grace period, read at each request so a rotation shows at once).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicJwk } from '../../core/jwt.js';
import { dropExpiredPublicKeys } from '../../http/principal.js';
import type { KeyedDeps } from './platform-keys.js';

const admin = { access: 'admin' as const };
const publicAccess = { access: 'public' as const };
const security = [{ bearerAuth: [] }];

export function keyRoutes(deps: Pick<KeyedDeps, 'keys' | 'clock'>): FastifyPluginAsyncZod {
  const jwks = () => {
    dropExpiredPublicKeys(deps.keys, deps.clock.now().getTime());
    return { keys: [...deps.keys.publicKeys].map(([kid, key]) => publicJwk(kid, key)) };
  };
  return async (app) => {
    app.get('/api/metadata/api-key', {
      config: admin,
      schema: {
        tags: ['metadata'],
        summary: 'The API key',
        security,
        response: { 200: z.object({ apiKey: z.string() }) },
      },
      handler: async () => ({ apiKey: deps.keys.apiKey }),
    });

    app.get('/api/metadata/anon-key', {
      config: admin,
      schema: {
        tags: ['metadata'],
        summary: 'The anon key',
        security,
        response: { 200: z.object({ anonKey: z.string() }) },
      },
      handler: async () => ({ anonKey: deps.keys.anonKey }),
    });

    app.post('/api/auth/tokens/anon', {
      config: admin,
      schema: {
        tags: ['auth'],
        summary: 'The anon key (older route; prefer GET /api/metadata/anon-key)',
        security,
        response: { 200: z.object({ accessToken: z.string(), message: z.string() }) },
      },
      handler: async () => ({
        accessToken: deps.keys.anonKey,
        message: 'Anon key retrieved successfully (deprecated route, use GET /api/metadata/anon-key)',
      }),
    });

    for (const url of ['/.well-known/jwks.json', '/api/.well-known/jwks.json']) {
      app.get(url, {
        config: publicAccess,
        schema: { tags: ['auth'], summary: 'Public keys that verify access tokens (JWKS)' },
        handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(jwks()),
      });
    }
  };
}
