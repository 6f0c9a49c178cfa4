// GET /api/database/schemas|functions|indexes|policies|triggers (admin): what the catalog holds
// in one schema (`?schema=`, default public).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { identifier } from './table-admin.schemas.js';
import { listFunctions, listIndexes, listPolicies, listSchemas, listTriggers } from './database-objects.repo.js';

const admin = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const tags = ['database'];
const schemaQuery = z.strictObject({ schema: identifier.default('public') });

export const indexInfo = z.object({
  tableName: z.string(),
  indexName: z.string(),
  indexDef: z.string(),
  isUnique: z.boolean(),
  isPrimary: z.boolean(),
});
export const policyInfo = z.object({
  tableName: z.string(),
  policyName: z.string(),
  command: z.string(),
  permissive: z.string(),
  roles: z.array(z.string()),
  using: z.string().nullable(),
  withCheck: z.string().nullable(),
});
export const triggerInfo = z.object({
  tableName: z.string(),
  triggerName: z.string(),
  functionName: z.string(),
  enabled: z.boolean(),
  definition: z.string(),
});
const functionInfo = z.object({
  name: z.string(),
  arguments: z.string(),
  returnType: z.string(),
  language: z.string(),
  kind: z.string(),
  definition: z.string(),
});

export function databaseObjectsRoutes(deps: Pick<Deps, 'sql'>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/schemas', {
      config: admin,
      schema: {
        tags,
        summary: 'Schemas of the database (platform schemas are protected)',
        security,
        response: { 200: z.object({ schemas: z.array(z.object({ name: z.string(), isProtected: z.boolean() })) }) },
      },
      handler: async () => ({ schemas: await listSchemas(deps.sql) }),
    });
    // One route per kind of object of a schema; each answers {<kind>: [...]}.
    const kinds = [
      ['functions', 'Functions of a schema (not those of extensions)', functionInfo, listFunctions],
      ['indexes', 'Indexes of a schema', indexInfo, listIndexes],
      ['policies', 'Row-level security policies of a schema', policyInfo, listPolicies],
      ['triggers', 'Triggers of a schema', triggerInfo, listTriggers],
    ] as const;
    for (const [kind, summary, item, list] of kinds) {
      app.get(`/api/database/${kind}`, {
        config: admin,
        schema: {
          tags,
          summary,
          security,
          querystring: schemaQuery,
          response: { 200: z.object({ [kind]: z.array(item) }) },
        },
        handler: async (request) => ({ [kind]: await list(deps.sql, request.query.schema) }),
      });
    }
  };
}
