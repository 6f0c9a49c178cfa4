// /api/database/rpc/{functionName}: PostgREST's function calls (named arguments in a POST body,
// or in the query string of a GET/HEAD) over the records pipeline. Also under the records path
// (`/api/database/records/rpc/{functionName}`), where a PostgREST client pointed at
// /api/database/records sends its `.rpc()` calls.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/principal.js';
import { acceptEmptyJsonBodies, pgrstFrameworkErrors, pgrstParts, sendPgrst } from './pgrst-http.js';
import type { RpcMethod, RpcService } from './rpc.service.js';

export const rpcParams = z.object({ functionName: z.string().min(1).max(63) });

/** The one handler of the function-call routes (Supabase's /rest/v1/rpc/{fn} mounts it too). */
export function rpcHandler(rpc: RpcService) {
  return async (request: FastifyRequest<{ Params: { functionName: string } }>, reply: FastifyReply) => {
    const response = await rpc.call({
      method: request.method as RpcMethod,
      functionName: request.params.functionName,
      ...pgrstParts(request),
      body: request.body,
      principal: principalOf(request),
    });
    return sendPgrst(reply, response);
  };
}

export function rpcRoutes(rpc: RpcService, limits: { maxJsonDepth: number }): FastifyPluginAsyncZod {
  return async (app) => {
    // An empty JSON body is no arguments, as PostgREST reads it (`curl -X POST -H 'Content-Type: application/json'`).
    acceptEmptyJsonBodies(app, limits.maxJsonDepth);
    pgrstFrameworkErrors(app);

    const handler = rpcHandler(rpc);
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
          params: rpcParams,
        },
        handler,
      });
    }
  };
}
