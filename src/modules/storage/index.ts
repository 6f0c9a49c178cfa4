// The storage module's face: its plugin, the bucket summaries the metadata overview shows, and the
// services a compatibility surface (modules/supabase/storage) adapts, over the same one store.
export { storagePlugin } from './storage.plugin.js';
export { bucketSummaries, createStorageService, SERVICE_PRINCIPAL } from './storage.service.js';
export type { ObjectRow, StorageService } from './storage.service.js';
export type { BucketLimits, FullBucketRow } from './storage.repo.js';
export { createStorageConfig } from './storage-config.service.js';
export { createUrlSigner, MAX_EXPIRES_IN, type UrlSigner } from './signed-urls.js';
export { sendObject } from './download.js';
export { normaliseMimeType } from './keys.js';
export { createObjectOps, type FolderEntry, type FolderSortColumn, type ObjectOps } from './object-ops.service.js';
export { createResumableUploads, type ResumableSurface, type ResumableUploads } from './resumable/resumable.service.js';
export { resumableRoutes } from './resumable/resumable.routes.js';
export { createImageService, type ImageCounts, type ImageService } from './images.service.js';
export { canonicalTransform, signedSubject, transformOf, transformQuery, type Transform } from './image-params.js';
