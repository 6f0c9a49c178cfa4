// GET /api/database/schemas|functions|indexes|policies|triggers (admin): what the catalog holds
// in one schema (`?schema=`, default public).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DatabaseCatalogService } from './database-catalog.service.js';
import { functionInfo, indexInfo, policyInfo, triggerInfo } from './database-objects.schemas.js';
import { identifier } from './table-admin.schemas.js';

const admin = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const tags = ['database'];
const schemaQuery = z.strictObject({ schema: identifier.default('public') });

export function databaseObjectsRoutes(catalog: DatabaseCatalogService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/schemas', {
      config: admin,
      schema: {
        tags,
        summary: 'Schemas of the database (platform schemas are protected)',
        security,
        response: { 200: z.object({ schemas: z.array(z.object({ name: z.string(), isProtected: z.boolean() })) }) },
      },
      handler: async () => ({ schemas: await catalog.schemas() }),
    });
    // One route per kind of object of a schema; each answers {<kind>: [...]}.
    const kinds = [
      ['functions', 'Functions of a schema (not those of extensions)', functionInfo],
      ['indexes', 'Indexes of a schema', indexInfo],
      ['policies', 'Row-level security policies of a schema', policyInfo],
      ['triggers', 'Triggers of a schema', triggerInfo],
    ] as const;
    for (const [kind, summary, item] of kinds) {
      app.get(`/api/database/${kind}`, {
        config: admin,
        schema: {
          tags,
          summary,
          security,
          querystring: schemaQuery,
          response: { 200: z.object({ [kind]: z.array(item) }) },
        },
        handler: async (request) => ({ [kind]: await catalog.objects(kind, request.query.schema) }),
      });
    }
  };
}
