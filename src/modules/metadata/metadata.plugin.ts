// Registers the metadata routes: the project overview, one table's description, and the keys.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from '../secrets/index.js';
import { keyRoutes } from './keys.routes.js';
import { metadataRoutes } from './metadata.routes.js';
import { createMetadataService } from './metadata.service.js';

export function metadataPlugin(deps: KeyedDeps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(keyRoutes(deps));
    await app.register(metadataRoutes(createMetadataService(deps)));
  };
}
