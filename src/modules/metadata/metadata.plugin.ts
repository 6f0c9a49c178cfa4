// Registers the metadata routes: the project overview and one table's description (the key routes
// under /api/metadata belong to the secrets module, which owns the keys).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from '../secrets/index.js';
import { metadataRoutes } from './metadata.routes.js';
import { createMetadataService } from './metadata.service.js';

export function metadataPlugin(deps: KeyedDeps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(metadataRoutes(createMetadataService(deps)));
  };
}
