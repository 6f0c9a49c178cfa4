// /api/storage/buckets: bucket administration (admin or API key).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { StorageService } from './storage.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const bucketParams = z.object({ bucket: z.string().min(1).max(256) });

export function bucketRoutes(storage: StorageService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/buckets', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'List buckets', security },
    }, async () => storage.listBuckets());

    app.post('/api/storage/buckets', {
      config: { access: 'admin' },
      schema: {
        tags: ['storage'],
        summary: 'Create a bucket',
        security,
        body: z.strictObject({ bucketName: z.string().min(1).max(256), isPublic: z.boolean().default(true) }),
      },
    }, async (request, reply) => {
      const { bucketName, isPublic } = request.body;
      await storage.createBucket(bucketName, isPublic);
      return reply.code(201).send({
        message: 'Bucket created successfully',
        bucketName,
        isPublic,
        nextActions: `Upload objects with PUT /api/storage/buckets/${bucketName}/objects/{key}.`,
      });
    });

    app.patch('/api/storage/buckets/:bucket', {
      config: { access: 'admin' },
      schema: {
        tags: ['storage'],
        summary: 'Make a bucket public or private',
        security,
        params: bucketParams,
        body: z.strictObject({ isPublic: z.boolean() }),
      },
    }, async (request) => {
      await storage.updateBucket(request.params.bucket, request.body.isPublic);
      return {
        message: 'Bucket visibility updated',
        bucket: request.params.bucket,
        isPublic: request.body.isPublic,
        nextActions: request.body.isPublic ? 'Objects can now be downloaded without a credential.' : 'Downloads now need a credential or a signed URL.',
      };
    });

    app.delete('/api/storage/buckets/:bucket', {
      config: { access: 'admin' },
      schema: { tags: ['storage'], summary: 'Delete a bucket and its objects', security, params: bucketParams },
    }, async (request) => {
      await storage.deleteBucket(request.params.bucket);
      return { message: 'Bucket deleted successfully', nextActions: 'Create a bucket with POST /api/storage/buckets.' };
    });
  };
}
