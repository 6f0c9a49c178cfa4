// Supabase's image transformations at /storage/v1/render/image/{authenticated|public|sign}/{bucket}/{path}
// (storage-js download(path, {transform}), getPublicUrl(path, {transform}), createSignedUrl(path,
// exp, {transform})), over Plinth's one image service: each path checks access exactly as its
// /object/ twin does, then transforms. A request naming no format gets WebP or AVIF where the
// client accepts them, as Supabase's does.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import { principalOf } from '../../../http/principal.js';
import {
  type ImageService,
  SERVICE_PRINCIPAL,
  signedSubject,
  type StorageService,
  transformOf,
  transformQuery,
} from '../../storage/index.js';
import type { SupabaseTokens } from './signed-tokens.js';
import { objectPathParams } from './storage.schemas.js';

const hide = true;
const client = { access: 'client' as const };
const publicAccess = { access: 'public' as const };
const signedQuery = transformQuery.extend({ token: z.string().min(1) });

export function renderRoutes(
  storage: StorageService,
  tokens: SupabaseTokens,
  images: ImageService,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/storage/v1/render/image/authenticated/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams, querystring: transformQuery },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        const principal = principalOf(request);
        return images.serve(request, reply, {
          bucket,
          key,
          transform: transformOf(request.query) ?? {},
          defaultFormat: 'auto',
          find: async () => ({ row: await storage.head(bucket, key, principal), shared: false }),
        });
      },
    });

    app.get('/storage/v1/render/image/public/:bucket/*', {
      config: publicAccess,
      schema: { hide, params: objectPathParams, querystring: transformQuery },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        return images.serve(request, reply, {
          bucket,
          key,
          transform: transformOf(request.query) ?? {},
          defaultFormat: 'auto',
          find: async () => {
            if (!(await storage.bucketOf(bucket)).public) throw new AppError('STORAGE_NOT_FOUND', 'Bucket not found');
            // No credential: the anon role's policies decide, as on /object/public.
            return { row: await storage.head(bucket, key, null), shared: true };
          },
        });
      },
    });

    app.get('/storage/v1/render/image/sign/:bucket/*', {
      config: publicAccess,
      schema: { hide, params: objectPathParams, querystring: signedQuery },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        const transform = transformOf(request.query);
        return images.serve(request, reply, {
          bucket,
          key,
          transform: transform ?? {},
          defaultFormat: 'auto',
          find: async () => {
            // The token's signature covers the transformation in the URL: another one is refused.
            if (!tokens.opens(bucket, signedSubject(key, transform), request.query.token)) {
              throw new AppError('UNAUTHORIZED', 'The signed URL is invalid or has expired.');
            }
            return { row: await storage.head(bucket, key, SERVICE_PRINCIPAL), shared: false };
          },
        });
      },
    });
  };
}
