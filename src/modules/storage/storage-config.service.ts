// The run-time storage settings (GET/PUT /api/storage/config): the largest object size, from the
// admin's setting when there is one, else from STORAGE_MAX_FILE_SIZE_BYTES; and the S3 gateway report.
import type { Deps } from '../../deps.js';
import * as repo from './storage.repo.js';

const MB = 1024 * 1024;

export function createStorageConfig(deps: Pick<Deps, 'sql' | 'config'>) {
  const envBytes = deps.config.storage.maxFileSizeBytes;
  const toBody = (row: repo.ConfigRow) => ({
    id: row.id,
    maxFileSizeMb: row.max_file_size_mb ?? Math.max(1, Math.floor(envBytes / MB)),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  });
  return {
    get: async () => toBody(await repo.readConfig(deps.sql)),
    update: async (maxFileSizeMb: number) => toBody(await repo.setMaxFileSize(deps.sql, maxFileSizeMb)),
    /** The largest object accepted right now, in bytes. */
    async maxBytes(): Promise<number> {
      const { max_file_size_mb: mb } = await repo.readConfig(deps.sql);
      return mb === null ? envBytes : mb * MB;
    },
  };
}

export type StorageConfig = ReturnType<typeof createStorageConfig>;

/** What GET /api/storage/s3/config answers: where the gateway is, its region, and whether it works. */
export function s3ConfigReport(deps: Pick<Deps, 'config' | 'blobStore'>) {
  return {
    endpoint: `${deps.config.apiBaseUrl}/storage/v1/s3`,
    region: deps.config.storage.region,
    available: deps.blobStore.kind === 's3',
  };
}
