// GET/PUT /api/storage/config: the largest object size (admin).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { StorageConfig } from './storage-config.service.js';
import { storageConfigBody, storageConfigResponse } from './storage.schemas.js';

const tags = ['storage'];
const config = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function storageConfigRoutes(settings: StorageConfig): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/config', {
      config,
      schema: {
        tags,
        summary: 'Storage settings (largest object size)',
        security,
        response: { 200: storageConfigResponse },
      },
      handler: () => settings.get(),
    });

    app.put('/api/storage/config', {
      config,
      schema: {
        tags,
        summary: 'Change the largest object size (MB)',
        security,
        body: storageConfigBody,
        response: { 200: storageConfigResponse },
      },
      handler: (request) => settings.update(request.body.maxFileSizeMb),
    });
  };
}
