// Supabase's /rest/v1: the records API's own handlers and services mounted at PostgREST's paths
// (`/rest/v1/{table}`, `/rest/v1/rpc/{fn}`), so supabase-js's `from()` and `rpc()` reach the same
// pipeline as /api/database/records. Only the few statuses PostgREST settles differently are
// translated (rest-errors.ts); credentials come from the `apikey` header (../keys.ts).
import type { FastifyError, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import {
  acceptCsvBodies,
  acceptEmptyJsonBodies,
  pgrstFrameworkError,
  type RecordsApi,
  recordsHandler,
  recordsParams,
  rpcHandler,
  rpcParams,
} from '../../records/index.js';
import { asPostgrestError } from './rest-errors.js';

const security = [{ bearerAuth: [] }];

export function supabaseRestPlugin(deps: Deps, api: RecordsApi): FastifyPluginAsyncZod {
  return async (app) => {
    acceptEmptyJsonBodies(app, deps.config.maxJsonDepth);
    acceptCsvBodies(app);
    app.setErrorHandler((err: FastifyError, request: FastifyRequest) => {
      throw asPostgrestError(pgrstFrameworkError(err, request) ?? err);
    });

    app.route({
      method: ['GET', 'HEAD', 'POST'],
      url: '/rest/v1/rpc/:functionName',
      config: { access: 'client' },
      exposeHeadRoute: false,
      schema: {
        tags: ['supabase'],
        summary: "Supabase's rpc(): call a database function (the records API's /rpc; row-level security applies)",
        security,
        params: rpcParams,
      },
      handler: rpcHandler(api.rpc),
    });

    app.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/rest/v1/:table',
      config: { access: 'client' },
      exposeHeadRoute: false,
      schema: {
        tags: ['supabase'],
        summary: "Supabase's from(table): the records API at PostgREST's path (row-level security applies)",
        security,
        params: recordsParams,
      },
      handler: recordsHandler(api.records),
    });
  };
}
