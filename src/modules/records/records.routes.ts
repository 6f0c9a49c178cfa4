// /api/database/records/{table}: PostgREST's wire conventions over the records pipeline.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/principal.js';
import type { RecordsMethod, RecordsService } from './records.service.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export function recordsRoutes(records: RecordsService): FastifyPluginAsyncZod {
  return async (app) => {
    // PostgREST clients send Content-Type: application/json on DELETE without a body.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '') done(null, undefined);
      else parseJson(request, body as string, done);
    });

    app.route({
      method: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      url: '/api/database/records/:table',
      config: { access: 'client' },
      exposeHeadRoute: false,
      schema: {
        tags: ['records'],
        summary: 'Read, insert, update or delete records (PostgREST grammar; row-level security applies)',
        security: [{ bearerAuth: [] }],
        params: z.object({ table: z.string().min(1).max(63) }),
      },
      handler: async (request, reply) => {
        const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
        const response = await records.handle({
          method: request.method as RecordsMethod,
          table: request.params.table,
          query: [...new URLSearchParams(search)],
          headers: {
            prefer: header(request.headers.prefer),
            accept: header(request.headers.accept),
            range: header(request.headers.range),
            acceptProfile: header(request.headers['accept-profile']),
            contentProfile: header(request.headers['content-profile']),
          },
          body: request.body,
          principal: principalOf(request),
        });
        reply.code(response.status).headers(response.headers);
        return response.body === undefined ? reply.send() : reply.send(response.body);
      },
    });
  };
}
