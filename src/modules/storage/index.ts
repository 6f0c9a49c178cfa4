// The storage module's face: its plugin, the blob stores the composition root builds, and the
// bucket summaries the metadata overview shows.
export type { BlobStore } from './blob-store.js';
export { createBlobStore } from './blob-stores.js';
export { storagePlugin } from './storage.plugin.js';
export { bucketSummaries } from './storage.service.js';
