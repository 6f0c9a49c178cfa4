// GET /api/database/types?lang=typescript (admin): the `Database` type for @supabase/postgrest-js
// and supabase-js, as a TypeScript file (`plinth db types > database.types.ts`).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TypesService } from './types.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function typesRoutes(types: TypesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/types', {
      config: { access: 'admin' },
      schema: {
        tags: ['database'],
        summary: 'Generated TypeScript types of the exposed schemas (the Database type postgrest-js consumes)',
        security,
        querystring: z.object({ lang: z.enum(['typescript']).default('typescript') }),
        response: { 200: z.string() },
      },
      handler: async (_request, reply) =>
        reply.type('application/typescript; charset=utf-8').send(await types.typescript()),
    });
  };
}
