// /api/database/records/{table}: PostgREST's wire conventions over the records pipeline; and the
// same pipeline as the dashboard's record editor, /api/database/admin/tables/{table}/records, an
// admin-only route so that every successful write through it is audited (logs module).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/principal.js';
import { idempotencyKeyOf } from '../idempotency/index.js';
import { acceptCsvBodies, acceptEmptyJsonBodies, pgrstFrameworkErrors, pgrstParts, sendPgrst } from './pgrst-http.js';
import type { RecordsMethod } from './plan/request.js';
import type { RecordsService } from './records.service.js';

export const recordsParams = z.object({ table: z.string().min(1).max(63) });

/** The one handler of the records routes (Supabase's /rest/v1/{table} mounts it too). */
export function recordsHandler(records: RecordsService) {
  return async (request: FastifyRequest<{ Params: { table: string } }>, reply: FastifyReply) => {
    const response = await records.handle({
      method: request.method as RecordsMethod,
      table: request.params.table,
      ...pgrstParts(request),
      body: request.body,
      principal: principalOf(request),
      idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
    });
    return sendPgrst(reply, response);
  };
}

export function recordsRoutes(records: RecordsService, limits: { maxJsonDepth: number }): FastifyPluginAsyncZod {
  return async (app) => {
    // PostgREST clients send Content-Type: application/json on DELETE without a body.
    acceptEmptyJsonBodies(app, limits.maxJsonDepth);
    pgrstFrameworkErrors(app);
    acceptCsvBodies(app);

    const params = recordsParams;
    const handler = recordsHandler(records);

    app.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/api/database/records/:table',
      config: { access: 'client' },
      exposeHeadRoute: false,
      schema: {
        tags: ['records'],
        summary: 'Read, insert, update or delete records (PostgREST grammar; row-level security applies)',
        security: [{ bearerAuth: [] }],
        params,
      },
      handler,
    });

    app.route({
      method: ['GET', 'POST', 'PATCH', 'DELETE'],
      url: '/api/database/admin/tables/:table/records',
      config: { access: 'admin' },
      schema: {
        tags: ['records'],
        summary: 'Admin record editor (PostgREST grammar, as the admin); successful writes are audited',
        security: [{ bearerAuth: [] }, { apiKey: [] }],
        params,
      },
      handler,
    });
  };
}
