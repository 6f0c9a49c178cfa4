// Supabase Storage's API at /storage/v1, a thin adapter over Plinth's storage services (one store
// of buckets, objects and blobs; the same row-level security), answering in storage-api's shapes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import { createObjectOps, createStorageConfig, createStorageService, type ImageService } from '../../storage/index.js';
import { bucketRoutes } from './buckets.routes.js';
import { objectRoutes } from './objects.routes.js';
import { renderRoutes } from './render.routes.js';
import { signRoutes } from './sign.routes.js';
import { createSupabaseTokens } from './signed-tokens.js';
import { useStorageErrorShape } from './storage-errors.js';
import { uploadRoutes } from './uploads.routes.js';

/** `images`: Plinth's image transformations, shared with /api/storage. */
export function supabaseStoragePlugin(deps: Deps, images: ImageService): FastifyPluginAsyncZod {
  return async (app) => {
    const storage = createStorageService(deps, createStorageConfig(deps));
    const ops = createObjectOps(storage);
    const tokens = createSupabaseTokens(deps.hmacKeys.storageUrls, deps.clock);
    useStorageErrorShape(app);
    await app.register(bucketRoutes(storage));
    await app.register(objectRoutes(storage, ops));
    await app.register(signRoutes(storage, tokens));
    await app.register(renderRoutes(storage, tokens, images));
    await app.register(uploadRoutes(storage, tokens));
  };
}
