// GET /api/metadata (the project overview, JSON or Markdown) and GET /api/metadata/:tableName
// (one table: columns, indexes, foreign keys, RLS, policies, triggers); admin only.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { columnInfo, indexInfo, policyInfo, tableParams, triggerInfo } from '../database/index.js';
import { overviewMarkdown, type MetadataService } from './metadata.service.js';

const admin = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const tags = ['metadata'];

const overview = z.object({
  auth: z.object({ config: z.record(z.string(), z.unknown()), oauthProviders: z.array(z.string()) }),
  database: z.object({
    tables: z.array(z.object({ name: z.string(), recordCount: z.number().int() })),
    totalTables: z.number().int(),
    totalRecords: z.number().int(),
    databaseSize: z.string(),
  }),
  storage: z.object({
    buckets: z.array(z.object({ name: z.string(), public: z.boolean(), objectCount: z.number().int() })),
  }),
  functions: z.object({
    functions: z.array(z.object({ slug: z.string(), name: z.string(), status: z.string(), verifyJwt: z.boolean() })),
  }),
  version: z.string(),
});

const tableMetadata = z.object({
  tableName: z.string(),
  rlsEnabled: z.boolean(),
  columns: z.array(columnInfo),
  indexes: z.array(indexInfo),
  foreignKeys: z.array(
    z.object({
      columnName: z.string(),
      referenceTable: z.string(),
      referenceColumn: z.string(),
      onDelete: z.string(),
      onUpdate: z.string(),
    }),
  ),
  policies: z.array(policyInfo),
  triggers: z.array(triggerInfo),
});

export function metadataRoutes(metadata: MetadataService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/metadata', {
      config: admin,
      schema: {
        tags,
        summary: 'Project overview: auth, database, storage, functions (format=markdown for a document)',
        security,
        // Unknown query fields are ignored, as the reference does (its MCP server sends ?mcp=true).
        querystring: z.object({ format: z.enum(['json', 'markdown']).default('json') }),
        response: { 200: z.union([overview, z.string()]) },
      },
      handler: async (request, reply) => {
        const o = await metadata.overview();
        if (request.query.format === 'json') return o;
        return reply.type('text/markdown; charset=utf-8').send(overviewMarkdown(o));
      },
    });

    app.get('/api/metadata/:tableName', {
      config: admin,
      schema: {
        tags,
        summary: 'One table: columns, indexes, foreign keys, RLS, policies, triggers',
        security,
        params: tableParams,
        response: { 200: tableMetadata },
      },
      handler: async (request) => metadata.table(request.params.tableName),
    });
  };
}
