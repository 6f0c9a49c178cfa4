// Uploads: PUT by key (create or replace) and POST with a generated key, as multipart (field
// `file`) or as the raw body. Bodies stream to the blob store; this scope parses no other way.
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import { tooLarge } from '../../platform/blob-store/blob-store.js';
import { normaliseMimeType } from './keys.js';
import type { StorageService } from './storage.service.js';
import { bucketParams, objectParams, storedFileSchema } from './storage.schemas.js';

const tags = ['storage'];
const client = { access: 'client' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

interface Upload {
  body: Readable;
  mimeType: string;
  filename?: string;
}

const noFile = () =>
  new AppError('STORAGE_INVALID_PARAMETER', 'No file was sent.', {
    nextActions: 'Send the bytes as the request body, or as the multipart field "file".',
  });

/** The uploaded bytes: the multipart field `file`, or the raw body. */
async function uploadOf(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (request.isMultipart()) {
    // Multipart's own limit sits one byte past ours, so the size check (413) is the same either way.
    const part = await request.file({ limits: { fileSize: maxBytes + 1, files: 1, fields: 10, parts: 20 } });
    if (part?.fieldname !== 'file') throw noFile();
    return { body: part.file, mimeType: normaliseMimeType(part.mimetype), filename: part.filename };
  }
  if (!request.body) throw noFile();
  return { body: request.body as Readable, mimeType: normaliseMimeType(request.headers['content-type']) };
}

export function uploadRoutes(storage: StorageService, options: { now(): Date }): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    await app.register(multipart);
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    /** Parses the upload (HTTP: multipart or raw) and hands it to the service. */
    const put = async (request: FastifyRequest, bucket: string, key: string | undefined) => {
      const maxBytes = await storage.maxBytes();
      const upload = await uploadOf(request, maxBytes);
      try {
        return await storage.put({ ...upload, bucket, key, principal: principalOf(request), now: options.now() });
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
        throw err;
      }
    };

    app.put('/api/storage/buckets/:bucket/objects/*', {
      config: client,
      schema: {
        tags,
        summary: 'Upload an object by key (create or replace; multipart field "file" or raw body)',
        security,
        params: objectParams,
        response: { 200: storedFileSchema },
      },
      handler: (request) => put(request, request.params.bucket, request.params['*']),
    });

    app.post('/api/storage/buckets/:bucket/objects', {
      config: client,
      schema: {
        tags,
        summary: 'Upload an object under a generated key',
        security,
        params: bucketParams,
        response: { 201: storedFileSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await put(request, request.params.bucket, undefined)),
    });
  };
}
