// /api/storage/buckets/{bucket}/objects: list, download, delete (one or many), and the upload
// and download strategies the JavaScript client asks for first.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { principalOf, type Principal } from '../../http/principal.js';
import { sendObject } from './download.js';
import { assertObjectKey, encodeKey } from './keys.js';
import { MAX_EXPIRES_IN, type UrlSigner } from './signed-urls.js';
import { SERVICE_PRINCIPAL, type StorageService } from './storage.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const bucketParams = z.object({ bucket: z.string().min(1).max(256) });
const objectParams = z.object({ bucket: z.string().min(1).max(256), '*': z.string().max(4096) });

export function objectRoutes(storage: StorageService, signer: UrlSigner): FastifyPluginAsyncZod {
  /** Where to download an object: its URL for a public bucket, else a signed, expiring one. */
  async function downloadStrategy(bucket: string, key: string, principal: Principal | null, expiresInAsked: number | undefined) {
    const found = await storage.head(bucket, key, principal);
    const url = storage.toFile(found).url;
    if ((await storage.bucketOf(bucket)).public) return { method: 'direct', url };
    const expiresIn = Math.min(Math.max(expiresInAsked ?? 3600, 1), MAX_EXPIRES_IN);
    const { expires, token } = signer.sign(bucket, key, expiresIn);
    return { method: 'presigned', url: `${url}?expires=${expires}&token=${token}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

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
      reply.header('cache-control', 'no-store');
      return downloadStrategy(bucket, key, request.principal, request.query.expiresIn);
    });

    // The reference platform's deprecated form, POST …/objects/{key}/download-strategy, which the
    // JavaScript client falls back to whenever the GET form answers 404 (a missing object too).
    app.post('/api/storage/buckets/:bucket/objects/*', {
      config: { access: 'public' },
      schema: {
        tags: ['storage'],
        summary: 'Deprecated form of GET …/download-strategy/objects/{key}: POST …/objects/{key}/download-strategy',
        params: objectParams,
        body: z.object({ expiresIn: z.coerce.number().int().optional() }).nullish(),
      },
    }, async (request, reply) => {
      const { bucket, '*': path } = request.params;
      const suffix = '/download-strategy';
      if (!path.endsWith(suffix) || path.length === suffix.length) {
        throw new AppError('NOT_FOUND', `Endpoint POST ${request.url.split('?')[0]} not found.`);
      }
      reply.header('cache-control', 'no-store');
      return downloadStrategy(bucket, path.slice(0, -suffix.length), request.principal, request.body?.expiresIn);
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
        summary: 'How to upload an object (direct PUT to this server)',
        security,
        params: bucketParams,
        body: z.object({ filename: z.string().min(1).max(1024), contentType: z.string().max(255).optional(), size: z.number().int().min(0).optional() }),
      },
    }, async (request) => {
      const { bucket } = request.params;
      await storage.bucketOf(bucket);
      assertObjectKey(request.body.filename);
      return {
        method: 'direct',
        uploadUrl: `${storage.baseUrl}/api/storage/buckets/${bucket}/objects/${encodeKey(request.body.filename)}`,
        key: request.body.filename,
        confirmRequired: false,
      };
    });
  };
}
