// /api/storage/s3/*: the gateway's configuration report and its access keys (admin).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { AccessKeys } from './s3-access-keys.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

/** What GET /api/storage/s3/config answers: where the gateway is, its region, and whether it works. */
export function s3ConfigReport(deps: Pick<Deps, 'config' | 'blobStore'>) {
  return {
    endpoint: `${deps.config.apiBaseUrl}/storage/v1/s3`,
    region: deps.config.storage.region,
    available: deps.blobStore.kind === 's3',
  };
}

export function s3ConfigRoutes(deps: Pick<Deps, 'config' | 'blobStore'>, keys: AccessKeys): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/s3/config', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'S3 gateway endpoint, signing region and availability', security },
    }, async () => ({ data: s3ConfigReport(deps) }));

    app.post('/api/storage/s3/access-keys', {
      config: { access: 'admin' },
      schema: {
        tags: ['storage'],
        summary: 'Create an S3 access key (the secret is shown only in this answer)',
        security,
        body: z.strictObject({ description: z.string().max(200).optional() }),
      },
    }, async (request, reply) => reply.code(201).header('cache-control', 'no-store').send(await keys.create(request.body.description)));

    app.get('/api/storage/s3/access-keys', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'List S3 access keys (without secrets)', security },
    }, async () => keys.list());

    app.delete('/api/storage/s3/access-keys/:id', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'Revoke an S3 access key', security, params: z.object({ id: z.uuid() }) },
    }, async (request, reply) => {
      await keys.remove(request.params.id);
      return reply.code(204).send();
    });
  };
}
