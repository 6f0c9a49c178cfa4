// Registers the metadata routes: the project overview, one table's description, and the keys.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { keyRoutes } from './keys.routes.js';
import { metadataRoutes } from './metadata.routes.js';
import { createMetadataService } from './metadata.service.js';

export function metadataPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(keyRoutes(deps));
    await app.register(metadataRoutes(createMetadataService(deps)));
  };
}
