// Uploads on /storage/v1: POST (x-upsert decides whether a present key is replaced or a 409) and
// PUT (replace) of /object/{bucket}/{key}, and PUT to a signed upload URL. The body is multipart
// as storage-js sends it (a cacheControl field, then the file under an empty field name) or the raw
// bytes (Content-Type, Cache-Control: max-age=N). Bytes stream to Plinth's blob store.
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import { principalOf } from '../../../http/principal.js';
import { normaliseMimeType, SERVICE_PRINCIPAL, type StorageService } from '../../storage/index.js';
import type { SupabaseTokens } from './signed-tokens.js';
import { objectPathParams, tokenQuery } from './storage.schemas.js';

const hide = true;
const client = { access: 'client' as const };
const publicAccess = { access: 'public' as const };

interface Upload {
  body: Readable;
  mimeType: string;
  cacheControl: string;
}

/** '3600' or 'max-age=3600' → 'max-age=3600'; anything else → storage-js's default. */
export const cacheControlOf = (value: string | undefined) => {
  const seconds = /^(?:max-age=)?(\d{1,10})$/.exec(value?.trim() ?? '')?.[1];
  return `max-age=${seconds ?? '3600'}`;
};

const noFile = () => new AppError('STORAGE_INVALID_PARAMETER', 'No file was sent.');

/** The uploaded bytes: multipart's first file part (fields before it read), or the raw body. */
async function uploadOf(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (!request.isMultipart()) {
    if (!request.body) throw noFile();
    return {
      body: request.body as Readable,
      mimeType: normaliseMimeType(request.headers['content-type']),
      cacheControl: cacheControlOf(request.headers['cache-control']),
    };
  }
  let cacheControl: string | undefined;
  // Stepped by hand: leaving a for-await loop would end the iterator under the file's stream.
  const parts = request
    .parts({ limits: { fileSize: maxBytes + 1, files: 1, fields: 10, parts: 20 } })
    [Symbol.asyncIterator]();
  for (let next = await parts.next(); !next.done; next = await parts.next()) {
    const part = next.value;
    if (part.type === 'field') {
      if (part.fieldname === 'cacheControl') cacheControl = String(part.value);
      continue;
    }
    return { body: part.file, mimeType: normaliseMimeType(part.mimetype), cacheControl: cacheControlOf(cacheControl) };
  }
  throw noFile();
}

export function uploadRoutes(storage: StorageService, tokens: SupabaseTokens): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    await app.register(multipart);
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    const put = async (
      request: FastifyRequest,
      target: { bucket: string; key: string },
      as: {
        principal: Principal;
        upsert: boolean;
        owner?: string | null;
      },
    ) => {
      await storage.bucketOf(target.bucket);
      const maxBytes = await storage.maxBytes();
      const upload = await uploadOf(request, maxBytes);
      try {
        const row = await storage.putRow({ ...target, ...upload, ...as });
        return { Id: row.id, Key: `${row.bucket}/${row.key}` };
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new AppError('PAYLOAD_TOO_LARGE', 'The object exceeded the maximum allowed size');
        }
        throw err;
      }
    };

    app.post('/storage/v1/object/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams },
      handler: (request) =>
        put(
          request,
          { bucket: request.params.bucket, key: request.params['*'] },
          { principal: principalOf(request), upsert: request.headers['x-upsert'] === 'true' },
        ),
    });

    app.put('/storage/v1/object/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams },
      handler: (request) =>
        put(
          request,
          { bucket: request.params.bucket, key: request.params['*'] },
          { principal: principalOf(request), upsert: true },
        ),
    });

    app.put('/storage/v1/object/upload/sign/:bucket/*', {
      config: publicAccess,
      schema: { hide, params: objectPathParams, querystring: tokenQuery },
      handler: async (request) => {
        const { bucket, '*': key } = request.params;
        const grant = tokens.uploadGrant(bucket, key, request.query.token);
        if (!grant) throw new AppError('UNAUTHORIZED', 'The signed upload URL is invalid or has expired.');
        // The write was checked against the asker's policies when the URL was made; the row
        // names the asker as its owner.
        const { Key } = await put(request, { bucket, key }, { principal: SERVICE_PRINCIPAL, ...grant });
        return { Key };
      },
    });
  };
}
