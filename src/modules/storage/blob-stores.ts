// Picks the blob store the configuration names.
import type { Config } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './blob-store.local.js';

export async function createBlobStore(config: Config['storage']): Promise<BlobStore> {
  return createLocalBlobStore(config.dir);
}
