// POST /api/database/advance/export (admin): the public tables as SQL or JSON.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ExportDatabase } from './export.service.js';
import { identifier } from './table-admin.schemas.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

const exportBody = z.strictObject({
  tables: z.array(identifier).min(1).max(1000).optional(),
  format: z.enum(['sql', 'json']).default('sql'),
  includeData: z.boolean().default(true),
  includeFunctions: z.boolean().default(false),
  includeSequences: z.boolean().default(false),
  includeViews: z.boolean().default(false),
  rowLimit: z.number().int().min(1).max(10000).default(1000),
});

export function exportRoutes(exportDatabase: ExportDatabase): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/database/advance/export', {
      config: { access: 'admin' },
      schema: {
        tags: ['database'],
        summary: 'Export public tables (structure, up to rowLimit rows each) as SQL or JSON, from one snapshot',
        security,
        body: exportBody,
        response: { 200: z.object({ format: z.enum(['sql', 'json']), data: z.unknown(), timestamp: z.string() }) },
      },
      handler: async (request) => exportDatabase(request.body),
    });
  };
}
