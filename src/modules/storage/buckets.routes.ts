// /api/storage/buckets: bucket administration (admin or API key).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { StorageService } from './storage.service.js';
import {
  bucketCreatedResponse,
  bucketListResponse,
  bucketParams,
  bucketUpdatedResponse,
  createBucketBody,
  messageResponse,
  updateBucketBody,
} from './storage.schemas.js';

const tags = ['storage'];
const config = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function bucketRoutes(storage: StorageService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/buckets', {
      config,
      schema: { tags, summary: 'List buckets', security, response: { 200: bucketListResponse } },
      handler: () => storage.listBuckets(),
    });

    app.post('/api/storage/buckets', {
      config,
      schema: {
        tags,
        summary: 'Create a bucket',
        security,
        body: createBucketBody,
        response: { 201: bucketCreatedResponse },
      },
      handler: async (request, reply) => {
        const { bucketName, isPublic } = request.body;
        await storage.createBucket(bucketName, isPublic);
        return reply.code(201).send({
          message: 'Bucket created successfully',
          bucketName,
          isPublic,
          nextActions: `Upload objects with PUT /api/storage/buckets/${bucketName}/objects/{key}.`,
        });
      },
    });

    app.patch('/api/storage/buckets/:bucket', {
      config,
      schema: {
        tags,
        summary: 'Make a bucket public or private',
        security,
        params: bucketParams,
        body: updateBucketBody,
        response: { 200: bucketUpdatedResponse },
      },
      handler: async (request) => {
        const { bucket } = request.params;
        const { isPublic } = request.body;
        await storage.updateBucket(bucket, isPublic);
        return {
          message: 'Bucket visibility updated',
          bucket,
          isPublic,
          nextActions: isPublic
            ? 'Objects can now be downloaded without a credential.'
            : 'Downloads now need a credential or a signed URL.',
        };
      },
    });

    app.delete('/api/storage/buckets/:bucket', {
      config,
      schema: {
        tags,
        summary: 'Delete a bucket and its objects',
        security,
        params: bucketParams,
        response: { 200: messageResponse },
      },
      handler: async (request) => {
        await storage.deleteBucket(request.params.bucket);
        return {
          message: 'Bucket deleted successfully',
          nextActions: 'Create a bucket with POST /api/storage/buckets.',
        };
      },
    });
  };
}
