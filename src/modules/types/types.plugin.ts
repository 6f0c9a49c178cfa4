// Registers the generated-types route; it reads the records API's schema cache.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import type { SchemaCache } from '../records/index.js';
import { typesRoutes } from './types.routes.js';
import { createTypesService } from './types.service.js';

export function typesPlugin(deps: Deps, schemaCache: SchemaCache): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(typesRoutes(createTypesService(deps, schemaCache)));
  };
}
