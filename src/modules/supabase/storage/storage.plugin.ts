// Supabase Storage's API at /storage/v1, a thin adapter over Plinth's storage services (one store
// of buckets, objects and blobs; the same row-level security), answering in storage-api's shapes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import {
  createObjectOps,
  createStorageConfig,
  createStorageService,
  type ImageService,
  resumableRoutes,
  type ResumableUploads,
} from '../../storage/index.js';
import { bucketRoutes } from './buckets.routes.js';
import { objectRoutes } from './objects.routes.js';
import { renderRoutes } from './render.routes.js';
import { signRoutes } from './sign.routes.js';
import { createSupabaseTokens } from './signed-tokens.js';
import { useStorageErrorShape } from './storage-errors.js';
import { cacheControlOf, uploadRoutes } from './uploads.routes.js';

/** storage-api's tus endpoint: x-upsert on creation, cacheControl metadata in seconds. */
const SUPABASE_RESUMABLE = {
  path: '/storage/v1/upload/resumable',
  upsert: (headers: Headers) => headers.get('x-upsert') === 'true',
  cacheControl: (value: string | undefined) => cacheControlOf(value),
};

/** `images`: Plinth's image transformations, shared with /api/storage; `resumable`: the tus uploads. */
export function supabaseStoragePlugin(
  deps: Deps,
  images: ImageService,
  resumable?: ResumableUploads,
): FastifyPluginAsyncZod {
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
    if (resumable) await app.register(resumableRoutes(resumable, SUPABASE_RESUMABLE));
  };
}
