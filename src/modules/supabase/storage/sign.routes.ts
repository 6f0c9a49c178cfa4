// Supabase's signed URLs on /storage/v1: a signed download URL is made for an object the caller
// can see and then opens it without a credential until it expires; a signed upload URL is made
// when the caller's policies would allow the write, and lets that one key be written for 2 hours.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import { principalOf } from '../../../http/principal.js';
import {
  canonicalTransform,
  MAX_EXPIRES_IN,
  SERVICE_PRINCIPAL,
  signedSubject,
  type StorageService,
  type Transform,
  transformOf,
} from '../../storage/index.js';
import { sendWithCaching } from './objects.routes.js';
import type { SupabaseTokens } from './signed-tokens.js';
import { bucketParams, objectPathParams, signBody, signManyBody, tokenQuery } from './storage.schemas.js';

const hide = true;
const client = { access: 'client' as const };
const publicAccess = { access: 'public' as const };

const encodePath = (bucket: string, key: string) => [bucket, ...key.split('/')].map(encodeURIComponent).join('/');

const invalidToken = () => new AppError('UNAUTHORIZED', 'The signed URL is invalid or has expired.');

export function signRoutes(storage: StorageService, tokens: SupabaseTokens): FastifyPluginAsyncZod {
  /**
   * The relative signed URL of an object `principal` can see; with a transformation, of that
   * transformed image only (/render/image/sign, the signature covering the parameters).
   */
  const signedUrl = async (
    bucket: string,
    key: string,
    expiresIn: number,
    principal: Principal,
    transform: Transform | null = null,
  ) => {
    await storage.head(bucket, key, principal);
    const token = tokens.download(bucket, signedSubject(key, transform), Math.min(expiresIn, MAX_EXPIRES_IN));
    if (!transform) return `/object/sign/${encodePath(bucket, key)}?token=${token}`;
    return `/render/image/sign/${encodePath(bucket, key)}?token=${token}&${canonicalTransform(transform)}`;
  };

  return async (app) => {
    app.post('/storage/v1/object/sign/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams, body: signBody },
      handler: async (request) => {
        const { bucket, '*': key } = request.params;
        const transform = request.body.transform ? transformOf(request.body.transform) : null;
        return { signedURL: await signedUrl(bucket, key, request.body.expiresIn, principalOf(request), transform) };
      },
    });

    app.post('/storage/v1/object/sign/:bucket', {
      config: client,
      schema: { hide, params: bucketParams, body: signManyBody },
      handler: async (request) => {
        const { bucket } = request.params;
        const principal = principalOf(request);
        await storage.bucketOf(bucket);
        const results = [];
        for (const path of request.body.paths) {
          try {
            results.push({
              error: null,
              path,
              signedURL: await signedUrl(bucket, path, request.body.expiresIn, principal),
            });
          } catch (err) {
            if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
            results.push({
              error: 'Either the object does not exist or you do not have access to it',
              path,
              signedURL: null,
            });
          }
        }
        return results;
      },
    });

    app.get('/storage/v1/object/sign/:bucket/*', {
      config: publicAccess,
      schema: { hide, params: objectPathParams, querystring: tokenQuery },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        if (!tokens.opens(bucket, key, request.query.token)) throw invalidToken();
        const row = await storage.head(bucket, key, SERVICE_PRINCIPAL);
        return sendWithCaching(storage, request, reply, row, SERVICE_PRINCIPAL);
      },
    });

    app.post('/storage/v1/object/upload/sign/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams },
      handler: async (request) => {
        const { bucket, '*': key } = request.params;
        const principal = principalOf(request);
        await storage.bucketOf(bucket);
        // Refused now (403) when the caller's policies would refuse the write itself.
        await storage.probeWrite(bucket, key, principal);
        const owner = principal.kind === 'user' ? principal.userId : null;
        const token = tokens.upload(bucket, key, { owner, upsert: request.headers['x-upsert'] === 'true' });
        return { url: `/object/upload/sign/${encodePath(bucket, key)}?token=${token}` };
      },
    });
  };
}
