// Registers the records API (PostgREST-compatible tables) and RPC, both reading the schema cache.
// The services are built once per app (createRecordsApi), so that another mount of the same
// handlers (Supabase's /rest/v1) shares them.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { recordsRoutes } from './records.routes.js';
import { createRecordsService, type RecordsService } from './records.service.js';
import { rpcRoutes } from './rpc.routes.js';
import { createRpcService, type RpcService } from './rpc.service.js';
import type { SchemaCache } from './schema-cache.js';
import { timezoneCheck } from './timezone.js';

export interface RecordsApi {
  records: RecordsService;
  rpc: RpcService;
}

export function createRecordsApi(deps: Deps, schemaCache: SchemaCache): RecordsApi {
  const options = {
    maxRows: deps.config.recordsMaxRows,
    schemas: deps.config.recordsSchemas,
    timezones: timezoneCheck(deps.sql),
  };
  return {
    records: createRecordsService(deps, schemaCache, options),
    rpc: createRpcService(deps, schemaCache, options),
  };
}

export function recordsPlugin(deps: Deps, api: RecordsApi): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(recordsRoutes(api.records, deps.config));
    await app.register(rpcRoutes(api.rpc, deps.config));
  };
}
