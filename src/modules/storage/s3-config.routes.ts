// /api/storage/s3/*: the gateway's configuration report and its access keys (admin).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import type { AccessKeys } from './s3-access-keys.js';
import { s3ConfigReport } from './storage-config.service.js';
import {
  accessKeyListResponse,
  accessKeyParams,
  createAccessKeyBody,
  createdAccessKeyResponse,
  noBody,
  s3ConfigResponse,
} from './storage.schemas.js';

const tags = ['storage'];
const config = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function s3ConfigRoutes(deps: Pick<Deps, 'config' | 'blobStore'>, keys: AccessKeys): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/s3/config', {
      config,
      schema: {
        tags,
        summary: 'S3 gateway endpoint, signing region and availability',
        security,
        response: { 200: s3ConfigResponse },
      },
      handler: () => ({ data: s3ConfigReport(deps) }),
    });

    app.post('/api/storage/s3/access-keys', {
      config,
      schema: {
        tags,
        summary: 'Create an S3 access key (the secret is shown only in this answer)',
        security,
        body: createAccessKeyBody,
        response: { 201: createdAccessKeyResponse },
      },
      handler: async (request, reply) =>
        reply
          .code(201)
          .header('cache-control', 'no-store')
          .send(await keys.create(request.body.description)),
    });

    app.get('/api/storage/s3/access-keys', {
      config,
      schema: {
        tags,
        summary: 'List S3 access keys (without secrets)',
        security,
        response: { 200: accessKeyListResponse },
      },
      handler: () => keys.list(),
    });

    app.delete('/api/storage/s3/access-keys/:id', {
      config,
      schema: {
        tags,
        summary: 'Revoke an S3 access key',
        security,
        params: accessKeyParams,
        response: { 204: noBody },
      },
      handler: async (request, reply) => {
        await keys.remove(request.params.id);
        return reply.code(204).send();
      },
    });
  };
}
