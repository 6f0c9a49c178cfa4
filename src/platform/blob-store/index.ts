// Picks the blob store the configuration names. The S3 store (and the AWS SDK, ~10 MB of memory)
// is loaded only when the configuration names S3.
import type { Config } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local.js';

export async function createBlobStore(config: Config['storage']): Promise<BlobStore> {
  if (config.backend === 's3' && config.s3) {
    const { createS3BlobStore } = await import('./s3.js');
    return createS3BlobStore(config.s3, config.region);
  }
  return createLocalBlobStore(config.dir);
}
