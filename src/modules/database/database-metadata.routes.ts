// GET /api/metadata/database (tables with exact record counts, totals, size) and
// GET /api/database/tables (names of the public base tables); admin only.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DatabaseCatalogService } from './database-catalog.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

const databaseMetadata = z.object({
  tables: z.array(z.object({ name: z.string(), recordCount: z.number().int() })),
  totalTables: z.number().int(),
  totalRecords: z.number().int(),
  databaseSize: z.string(),
  lastUpdated: z.string(),
});

export function databaseMetadataRoutes(catalog: DatabaseCatalogService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/metadata/database', {
      config: { access: 'admin' },
      schema: {
        tags: ['metadata'],
        summary: 'Tables with exact record counts, totals and database size',
        security,
        response: { 200: databaseMetadata },
      },
      handler: () => catalog.summary(),
    });

    app.get('/api/database/tables', {
      config: { access: 'admin' },
      schema: {
        tags: ['database'],
        summary: 'Names of the base tables in the public schema',
        security,
        response: { 200: z.array(z.string()) },
      },
      handler: () => catalog.publicTables(),
    });
  };
}
