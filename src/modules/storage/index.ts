// The storage module's face: its routes, and the blob store the composition root builds.
export { storageRoutes } from './storage.routes.js';
export type { BlobStore } from './blob-store.js';
export { createBlobStore } from './blob-stores.js';
