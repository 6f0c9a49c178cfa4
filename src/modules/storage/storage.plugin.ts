// Wires the storage module: its services from the app's deps, and every storage route, each set
// in a scope of its own (uploads parse raw and multipart bodies; the S3 gateway parses none).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { bucketRoutes } from './buckets.routes.js';
import { createDirectUploads } from './direct-uploads.service.js';
import { createDownloads } from './downloads.service.js';
import type { ImageService } from './images.service.js';
import { objectActionRoutes } from './object-actions.routes.js';
import { objectRoutes } from './objects.routes.js';
import { gatewayRoutes } from './s3-gateway/gateway.routes.js';
import { createAccessKeys } from './s3-access-keys.js';
import { s3ConfigRoutes } from './s3-config.routes.js';
import { createUrlSigner } from './signed-urls.js';
import { storageConfigRoutes } from './storage-config.routes.js';
import { createStorageConfig } from './storage-config.service.js';
import { createStorageService } from './storage.service.js';
import { uploadRoutes } from './uploads.routes.js';
import { resumableRoutes } from './resumable/resumable.routes.js';
import { PLINTH_SURFACE, type ResumableUploads } from './resumable/resumable.service.js';

/**
 * `images`: the image transformations (one queue and cache for every path that serves them);
 * `resumable`: the tus uploads, shared with /storage/v1.
 */
export function storagePlugin(deps: Deps, images: ImageService, resumable?: ResumableUploads): FastifyPluginAsyncZod {
  return async (app) => {
    const settings = createStorageConfig(deps);
    const storage = createStorageService(deps, settings);
    // Blobs whose removal, or whose row, a crash interrupted.
    const uploads = createDirectUploads(deps, storage);
    app.addHook('onReady', async () => {
      await storage.sweepAbandoned();
      await uploads.sweep();
    });
    const downloads = createDownloads(storage, createUrlSigner(deps.hmacKeys.storageUrls, deps.clock));
    await app.register(bucketRoutes(storage));
    await app.register(objectRoutes(storage, downloads, uploads, images));
    await app.register(objectActionRoutes(downloads, uploads));
    const accessKeys = createAccessKeys(deps);
    await app.register(s3ConfigRoutes(deps, accessKeys));
    await app.register(gatewayRoutes(deps, storage, accessKeys));
    await app.register(storageConfigRoutes(settings));
    await app.register(uploadRoutes(storage, { now: () => deps.clock.now() }));
    if (resumable) await app.register(resumableRoutes(resumable, PLINTH_SURFACE));
  };
}
