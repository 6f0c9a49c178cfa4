// /api/database/rpc/{functionName}: PostgREST's function calls (named arguments in a POST body,
// or in the query string of a GET/HEAD) over the records pipeline. Also under the records path
// (`/api/database/records/rpc/{functionName}`), where a PostgREST client pointed at
// /api/database/records sends its `.rpc()` calls.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/principal.js';
import type { RpcMethod, RpcService } from './rpc.service.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export function rpcRoutes(rpc: RpcService): FastifyPluginAsyncZod {
  return async (app) => {
    // An empty JSON body is no arguments, as PostgREST reads it (`curl -X POST -H 'Content-Type: application/json'`).
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '') done(null, undefined);
      else parseJson(request, body as string, done);
    });

    for (const url of ['/api/database/rpc/:functionName', '/api/database/records/rpc/:functionName']) {
      app.route({
        method: ['GET', 'HEAD', 'POST'],
        url,
        config: { access: 'client' },
        exposeHeadRoute: false,
        schema: {
          tags: ['records'],
          summary: 'Call a database function with named arguments (row-level security applies)',
          security: [{ bearerAuth: [] }],
          params: z.object({ functionName: z.string().min(1).max(63) }),
        },
        handler: async (request, reply) => {
          const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
          const response = await rpc.call({
            method: request.method as RpcMethod,
            functionName: request.params.functionName,
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
    }
  };
}
