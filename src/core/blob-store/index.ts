// Picks the blob store the configuration names.
import type { Config } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local.js';
import { createS3BlobStore } from './s3.js';

export async function createBlobStore(config: Config['storage']): Promise<BlobStore> {
  if (config.backend === 's3' && config.s3) return createS3BlobStore(config.s3, config.region);
  return createLocalBlobStore(config.dir);
}
