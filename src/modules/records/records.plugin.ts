// Registers the records API (PostgREST-compatible tables) and RPC, both reading the schema cache.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { recordsRoutes } from './records.routes.js';
import { createRecordsService } from './records.service.js';
import { rpcRoutes } from './rpc.routes.js';
import { createRpcService } from './rpc.service.js';
import type { SchemaCache } from './schema-cache.js';
import { timezoneCheck } from './timezone.js';

export function recordsPlugin(deps: Deps, schemaCache: SchemaCache): FastifyPluginAsyncZod {
  return async (app) => {
    const options = {
      maxRows: deps.config.recordsMaxRows,
      schemas: deps.config.recordsSchemas,
      timezones: timezoneCheck(deps.sql),
    };
    await app.register(recordsRoutes(createRecordsService(deps, schemaCache, options), deps.config));
    await app.register(rpcRoutes(createRpcService(deps, schemaCache, options), deps.config));
  };
}
