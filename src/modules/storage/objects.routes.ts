// /api/storage/buckets/{bucket}/objects: list, download, delete (one or many), and the upload
// and download strategies the JavaScript client asks for first.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import { sendObject } from './download.js';
import type { DirectUploads } from './direct-uploads.js';
import { downloadStrategy } from './download-strategy.js';
import type { UrlSigner } from './signed-urls.js';
import { SERVICE_PRINCIPAL, type StorageService } from './storage.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const bucketParams = z.object({ bucket: z.string().min(1).max(256) });
const objectParams = z.object({ bucket: z.string().min(1).max(256), '*': z.string().max(4096) });

export function objectRoutes(storage: StorageService, signer: UrlSigner, uploads: DirectUploads): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/storage/buckets/:bucket/objects', {
      config: { access: 'client' },
      schema: {
        tags: ['storage'],
        summary: 'List objects (row-level security applies)',
        security,
        params: bucketParams,
        querystring: z.object({
          prefix: z.string().max(1024).optional(),
          search: z.string().max(1024).optional(),
          limit: z.coerce.number().int().min(1).max(1000).default(100),
          offset: z.coerce.number().int().min(0).default(0),
        }),
      },
    }, async (request) => {
      const page = await storage.list(request.params.bucket, principalOf(request), request.query);
      return { ...page, nextActions: 'Download an object with GET …/objects/{key}.' };
    });

    app.get('/api/storage/buckets/:bucket/objects/*', {
      config: { access: 'public' },
      schema: {
        tags: ['storage'],
        summary: 'Download an object (public buckets or a signed URL: no credential; Range and If-None-Match supported)',
        params: objectParams,
        querystring: z.object({ expires: z.coerce.number().int().optional(), token: z.string().max(128).optional(), v: z.string().optional() }),
      },
    }, async (request, reply) => {
      const { bucket, '*': key } = request.params;
      const { expires, token } = request.query;
      let principal = request.principal;
      if (token !== undefined || expires !== undefined) {
        if (!signer.verify(bucket, key, expires ?? 0, token ?? '')) {
          throw new AppError('UNAUTHORIZED', 'The signed URL is invalid or has expired.', {
            nextActions: 'Ask for a new URL with GET …/download-strategy/objects/{key}.',
          });
        }
        principal = SERVICE_PRINCIPAL; // a valid signed URL reads the one object it names
      }
      const row = await storage.head(bucket, key, principal);
      return sendObject(storage, request, reply, row, principal);
    });

    app.get('/api/storage/buckets/:bucket/download-strategy/objects/*', {
      config: { access: 'public' },
      schema: {
        tags: ['storage'],
        summary: 'How to download an object: its URL, signed and expiring for private buckets',
        params: objectParams,
        querystring: z.object({ expiresIn: z.coerce.number().int().optional() }),
      },
    }, async (request, reply) => {
      const { bucket, '*': key } = request.params;
      const strategy = await downloadStrategy(storage, signer, { bucket, key, expiresIn: request.query.expiresIn }, request.principal);
      return reply.header('cache-control', 'no-store').send(strategy);
    });

    app.delete('/api/storage/buckets/:bucket/objects/*', {
      config: { access: 'client' },
      schema: { tags: ['storage'], summary: 'Delete an object', security, params: objectParams },
    }, async (request) => {
      const { bucket, '*': key } = request.params;
      await storage.bucketOf(bucket);
      const deleted = await storage.remove(bucket, [key], principalOf(request));
      if (!deleted.has(key)) throw new AppError('OBJECT_NOT_FOUND', 'Object not found.');
      return { message: 'Object deleted successfully' };
    });

    app.delete('/api/storage/buckets/:bucket/objects', {
      config: { access: 'client' },
      schema: {
        tags: ['storage'],
        summary: 'Delete several objects',
        security,
        params: bucketParams,
        body: z.strictObject({ keys: z.array(z.string().min(1).max(1024)).min(1).max(1000) }),
      },
    }, async (request) => {
      const keys = [...new Set(request.body.keys)];
      const deleted = await storage.remove(request.params.bucket, keys, principalOf(request));
      return { results: keys.map((key) => ({ key, status: deleted.has(key) ? 'deleted' : 'notFound' })) };
    });

    app.post('/api/storage/buckets/:bucket/upload-strategy', {
      config: { access: 'client' },
      schema: {
        tags: ['storage'],
        summary: 'How to upload an object: a PUT to this server, or on S3 a presigned POST to the bucket and a confirmation',
        security,
        params: bucketParams,
        body: z.object({ filename: z.string().min(1).max(1024), contentType: z.string().max(255).optional(), size: z.number().int().min(0).optional() }),
      },
    }, async (request) => uploads.strategy(request.params.bucket, principalOf(request), request.body));
  };
}
