// POST /api/database/advance/rawsql (as project_admin) and …/rawsql/unrestricted (as the
// database owner): admin SQL with parameters, a statement timeout and the admin SQL guard.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rawSqlBody, rawSqlResult } from './raw-sql.schemas.js';
import type { RunRawSql } from './raw-sql.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function rawSqlRoutes(runRawSql: RunRawSql): FastifyPluginAsyncZod {
  return async (app) => {
    const variants = [
      ['/api/database/advance/rawsql', 'project_admin', 'Run SQL as project_admin (row-level security applies)'],
      ['/api/database/advance/rawsql/unrestricted', 'owner', 'Run SQL as the database owner (still guarded)'],
    ] as const;
    for (const [url, as, summary] of variants) {
      app.post(url, {
        config: { access: 'admin' },
        schema: { tags: ['database'], summary, security, body: rawSqlBody, response: { 200: rawSqlResult } },
        handler: async (request) => runRawSql(request.body.query, request.body.params, as),
      });
    }
  };
}
