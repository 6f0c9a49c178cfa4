// The run-time storage settings (GET/PUT /api/storage/config): the largest object size, from the
// admin's setting when there is one, else from STORAGE_MAX_FILE_SIZE_BYTES.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';

const MB = 1024 * 1024;

interface ConfigRow {
  id: string;
  max_file_size_mb: number | null;
  created_at: Date;
  updated_at: Date;
}

export function createStorageConfig(deps: Pick<Deps, 'sql' | 'config'>) {
  const envBytes = deps.config.storage.maxFileSizeBytes;
  const toBody = (row: ConfigRow) => ({
    id: row.id,
    maxFileSizeMb: row.max_file_size_mb ?? Math.max(1, Math.floor(envBytes / MB)),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  });
  const read = async () => (await deps.sql<ConfigRow[]>`select id, max_file_size_mb, created_at, updated_at from storage.config`)[0]!;
  return {
    get: async () => toBody(await read()),
    async update(maxFileSizeMb: number) {
      const [row] = await deps.sql<ConfigRow[]>`
        update storage.config set max_file_size_mb = ${maxFileSizeMb}, updated_at = now()
        returning id, max_file_size_mb, created_at, updated_at`;
      return toBody(row!);
    },
    /** The largest object accepted right now, in bytes. */
    async maxBytes(): Promise<number> {
      const { max_file_size_mb: mb } = await read();
      return mb === null ? envBytes : mb * MB;
    },
  };
}

export type StorageConfig = ReturnType<typeof createStorageConfig>;

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function storageConfigRoutes(settings: StorageConfig): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/config', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'Storage settings (largest object size)', security },
    }, async () => settings.get());

    app.put('/api/storage/config', {
      config: { access: 'admin' },
      schema: {
        tags: ['storage'],
        summary: 'Change the largest object size (MB)',
        security,
        body: z.strictObject({ maxFileSizeMb: z.number().int().min(1).max(200) }),
      },
    }, async (request) => settings.update(request.body.maxFileSizeMb));
  };
}
