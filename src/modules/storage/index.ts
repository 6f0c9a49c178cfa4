// The storage module's face: its plugin, and the blob stores the composition root builds.
export type { BlobStore } from './blob-store.js';
export { createBlobStore } from './blob-stores.js';
export { storagePlugin } from './storage.plugin.js';
