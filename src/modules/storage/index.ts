// The storage module's face: its plugin, and the bucket summaries the metadata overview shows.
export { storagePlugin } from './storage.plugin.js';
export { bucketSummaries } from './storage.service.js';
