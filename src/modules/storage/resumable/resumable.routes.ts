// The tus endpoint's routes: POST <path> creates an upload; HEAD, PATCH and DELETE <path>/<id>
// read its offset, append to it and terminate it; OPTIONS answers tus's discovery. The body is
// never parsed: the raw request goes to @tus/server as a web Request (a body carrying
// Upload-Checksum is first staged and verified, checksum.ts). Errors leave as the app's errors.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../../core/errors.js';
import { principalOf } from '../../../http/principal.js';
import { CHECKSUM_ALGORITHMS, parseUploadChecksum, type StagedBody, stageVerified } from './checksum.js';
import type { ResumableSurface, ResumableUploads } from './resumable.service.js';
import { noSuchUpload } from './resumable.service.js';

const client = { access: 'client' as const };
// tus's discovery (OPTIONS without a CORS preflight's headers) needs no credential.
const publicAccess = { access: 'public' as const };
const TUS_HEADERS =
  'Location, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Checksum-Algorithm, Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires';

/** The app's error for a tus answer ≥ 400 (its body is tus's text). */
function tusError(status: number, text: string): AppError {
  const message = text.trim() || 'The upload request failed.';
  const codes: Record<number, ErrorCode> = {
    404: 'NOT_FOUND',
    409: 'CONFLICT',
    410: 'STORAGE_UPLOAD_EXPIRED',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    423: 'STORAGE_UPLOAD_LOCKED',
    460: 'STORAGE_CHECKSUM_MISMATCH',
  };
  const code = codes[status];
  if (status === 404) return noSuchUpload();
  if (status === 409)
    return new AppError('CONFLICT', message, {
      nextActions: 'HEAD the upload for its offset and send the bytes from there.',
    });
  if (code) return new AppError(code, message);
  if (status >= 500 && status !== 501) return new AppError('INTERNAL_ERROR');
  // 400, 412 (no Tus-Resumable), 501 (Upload-Defer-Length, Upload-Concat): the request is not one we serve.
  return new AppError('STORAGE_INVALID_PARAMETER', message, {
    nextActions:
      'Speak tus 1.0 (Tus-Resumable: 1.0.0) with Upload-Length known at creation; concatenation and deferred length are not served.',
  });
}

/**
 * The request body as a web stream that reads nothing until it is read: a request refused before
 * its body is wanted leaves the body to Node, which discards it once the answer is sent.
 */
function lazyBody(node: Readable): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= node[Symbol.asyncIterator]();
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      },
      async cancel() {
        await chunks?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The web Request @tus/server reads: the raw body (or the verified staged one), never parsed. */
function webRequestOf(request: FastifyRequest, staged: StagedBody | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const hasBody = request.method === 'POST' || request.method === 'PATCH';
  let body: ReadableStream | undefined;
  if (staged) {
    headers.set('content-length', String(staged.size));
    body = lazyBody(staged.open());
  } else if (hasBody) body = lazyBody(request.raw);
  const url = new URL(request.url, 'http://plinth.invalid');
  const web = new Request(`http://plinth.invalid${url.pathname}`, {
    method: request.method,
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
  // @tus/server ends a write cleanly when the client's connection breaks (Node's request events).
  if (!staged) Object.assign(web, { runtime: { node: { req: request.raw, res: null } } });
  return web;
}

export function resumableRoutes(resumable: ResumableUploads, surface: ResumableSurface): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const server = resumable.serverFor(surface);

    async function handle(request: FastifyRequest, reply: FastifyReply, uploadUrlId?: string): Promise<void> {
      const principal = request.method === 'OPTIONS' ? (request.principal ?? { kind: 'anon' }) : principalOf(request);
      const checksumHeader = request.headers['upload-checksum'];
      let staged: StagedBody | undefined;
      if (typeof checksumHeader === 'string' && (request.method === 'PATCH' || request.method === 'POST')) {
        const checksum = parseUploadChecksum(checksumHeader);
        // Bytes are staged only for the upload's own creator, and never more than it declared.
        const declared =
          request.method === 'PATCH'
            ? Number((await resumable.ownUpload(resumable.uploadIdOfUrl(uploadUrlId ?? ''), principal)).upload_length)
            : Math.min(Number(request.headers['upload-length']), await resumable.maxBytes());
        if (!Number.isSafeInteger(declared) || declared < 0) throw tusError(400, 'Invalid Upload-Length');
        staged = await stageVerified(request.raw, resumable.chunkDir, checksum, declared);
      }
      try {
        const { response, error } = await resumable.handle(server, webRequestOf(request, staged), surface, principal);
        if (error) throw error;
        const text = await response.text();
        if (response.status >= 400) throw tusError(response.status, text);
        for (const [name, value] of response.headers) {
          if (!name.startsWith('access-control-') && name !== 'content-length') reply.header(name, value);
        }
        if (request.method === 'OPTIONS') reply.header('tus-checksum-algorithm', CHECKSUM_ALGORITHMS.join(','));
        const location = response.headers.get('location');
        const uploadId = uploadUrlId ?? location?.slice(location.lastIndexOf('/') + 1);
        if (uploadId && request.method !== 'DELETE' && request.method !== 'OPTIONS') {
          const expires = await resumable.expiresAt(resumable.uploadIdOfUrl(uploadId) ?? '');
          if (expires) reply.header('upload-expires', expires.toUTCString());
        }
        if (reply.getHeader('access-control-allow-origin')) {
          reply.header(
            'access-control-expose-headers',
            `${reply.getHeader('access-control-expose-headers')}, ${TUS_HEADERS}`,
          );
        }
        reply.code(response.status).send(text.length > 0 ? text : undefined);
      } finally {
        await staged?.dispose();
      }
    }

    const idParams = z.object({ id: z.string().max(100) });
    const schema = { hide: true };
    app.post(surface.path, { config: client, schema }, (request, reply) => handle(request, reply));
    app.options(surface.path, { config: publicAccess, schema }, (request, reply) => handle(request, reply));
    for (const method of ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      app.route({
        method,
        url: `${surface.path}/:id`,
        config: { access: method === 'OPTIONS' ? ('public' as const) : ('client' as const) },
        schema: { ...schema, params: idParams },
        handler: (request, reply) => handle(request, reply, request.params.id),
      });
    }
  };
}
