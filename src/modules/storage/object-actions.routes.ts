// POST /api/storage/buckets/{bucket}/objects/{key}/{action}: confirm-upload (after a presigned
// POST to S3) and the deprecated download-strategy. One wildcard route, split by the last segment.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import type { DirectUploads } from './direct-uploads.service.js';
import type { Downloads } from './downloads.service.js';
import { expiresInQuery, objectActionBody, objectActionResponse, objectParams } from './storage.schemas.js';

const ACTIONS = ['confirm-upload', 'download-strategy'] as const;

export function objectActionRoutes(downloads: Downloads, uploads: DirectUploads): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/storage/buckets/:bucket/objects/*', {
      // download-strategy is public for public buckets; confirm-upload demands a credential itself.
      config: { access: 'public' },
      schema: {
        tags: ['storage'],
        summary:
          'POST …/objects/{key}/confirm-upload (client credential; body size, contentType?, etag?) records a presigned upload; ' +
          'POST …/objects/{key}/download-strategy is the deprecated form of GET …/download-strategy/objects/{key}',
        params: objectParams,
        querystring: expiresInQuery,
        body: objectActionBody,
        response: { 200: objectActionResponse },
      },
      handler: async (request, reply) => {
        const { bucket, '*': path } = request.params;
        const slash = path.lastIndexOf('/');
        const action = path.slice(slash + 1) as (typeof ACTIONS)[number];
        const key = path.slice(0, Math.max(slash, 0));
        if (slash <= 0 || !ACTIONS.includes(action)) {
          throw new AppError('NOT_FOUND', `Endpoint POST ${request.url.split('?')[0]} not found`, {
            nextActions: 'POST …/objects/{key}/confirm-upload or …/objects/{key}/download-strategy.',
          });
        }
        const body = request.body ?? {};
        if (action === 'download-strategy') {
          const expiresIn = request.query.expiresIn ?? body.expiresIn;
          return reply
            .header('cache-control', 'no-store')
            .send(await downloads.strategy({ bucket, key, expiresIn }, request.principal));
        }
        const principal = principalOf(request);
        if (body.size === undefined)
          throw new AppError('VALIDATION_ERROR', 'size: Required', { nextActions: 'Send the uploaded size in bytes.' });
        return uploads.confirm(bucket, key, principal, {
          size: body.size,
          contentType: body.contentType,
          etag: body.etag,
        });
      },
    });
  };
}
