// /api/storage/buckets/{bucket}/objects: list, download, delete (one or many), and the upload
// and download strategies the JavaScript client asks for first.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/principal.js';
import type { DirectUploads } from './direct-uploads.service.js';
import { sendObject } from './download.js';
import type { Downloads } from './downloads.service.js';
import { transformOf } from './image-params.js';
import type { ImageService } from './images.service.js';
import type { StorageService } from './storage.service.js';
import {
  bucketParams,
  deleteObjectsBody,
  deleteObjectsResponse,
  downloadQuery,
  downloadStrategyQuery,
  downloadStrategyResponse,
  listObjectsQuery,
  messageResponse,
  noBody,
  objectBytes,
  objectListResponse,
  objectParams,
  uploadStrategyBody,
  uploadStrategyResponse,
} from './storage.schemas.js';

const tags = ['storage'];
const client = { access: 'client' as const };
const publicAccess = { access: 'public' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function objectRoutes(
  storage: StorageService,
  downloads: Downloads,
  uploads: DirectUploads,
  images: ImageService,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/buckets/:bucket/objects', {
      config: client,
      schema: {
        tags,
        summary: 'List objects (row-level security applies)',
        security,
        params: bucketParams,
        querystring: listObjectsQuery,
        response: { 200: objectListResponse },
      },
      handler: async (request) => {
        const page = await storage.list(request.params.bucket, principalOf(request), request.query);
        return { ...page, nextActions: 'Download an object with GET …/objects/{key}.' };
      },
    });

    app.get('/api/storage/buckets/:bucket/objects/*', {
      config: publicAccess,
      schema: {
        tags,
        summary:
          'Download an object (public buckets or a signed URL: no credential; Range and If-None-Match supported). ' +
          'width, height, resize, quality or format transform an image (docs/storage-images.md)',
        params: objectParams,
        querystring: downloadQuery,
        response: { 200: objectBytes, 206: objectBytes, 304: noBody },
      },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        const transform = transformOf(request.query);
        if (transform) {
          return images.serve(request, reply, {
            bucket,
            key,
            transform,
            defaultFormat: 'origin',
            pinned: request.query.v !== undefined,
            find: async () => {
              const found = await downloads.find({ bucket, key }, request.query, request.principal, transform);
              return { row: found.row, shared: found.principal === null };
            },
          });
        }
        const { row, principal } = await downloads.find({ bucket, key }, request.query, request.principal);
        return sendObject(storage, request, reply, row, principal);
      },
    });

    app.get('/api/storage/buckets/:bucket/download-strategy/objects/*', {
      config: publicAccess,
      schema: {
        tags,
        summary:
          'How to download an object: its URL, signed and expiring for private buckets (with width, height, resize, quality, format: of the transformed image)',
        params: objectParams,
        querystring: downloadStrategyQuery,
        response: { 200: downloadStrategyResponse },
      },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        const strategy = await downloads.strategy(
          { bucket, key, expiresIn: request.query.expiresIn, transform: transformOf(request.query) },
          request.principal,
        );
        return reply.header('cache-control', 'no-store').send(strategy);
      },
    });

    app.delete('/api/storage/buckets/:bucket/objects/*', {
      config: client,
      schema: { tags, summary: 'Delete an object', security, params: objectParams, response: { 200: messageResponse } },
      handler: async (request) => {
        await storage.removeOne(request.params.bucket, request.params['*'], principalOf(request));
        return { message: 'Object deleted successfully' };
      },
    });

    app.delete('/api/storage/buckets/:bucket/objects', {
      config: client,
      schema: {
        tags,
        summary: 'Delete several objects',
        security,
        params: bucketParams,
        body: deleteObjectsBody,
        response: { 200: deleteObjectsResponse },
      },
      handler: async (request) => ({
        results: await storage.removeMany(request.params.bucket, request.body.keys, principalOf(request)),
      }),
    });

    app.post('/api/storage/buckets/:bucket/upload-strategy', {
      config: client,
      schema: {
        tags,
        summary:
          'How to upload an object: a PUT to this server, or on S3 a presigned POST to the bucket and a confirmation',
        security,
        params: bucketParams,
        body: uploadStrategyBody,
        response: { 200: uploadStrategyResponse },
      },
      handler: (request) => uploads.strategy(request.params.bucket, principalOf(request), request.body),
    });
  };
}
