// Sending an object: Range, ETag / If-None-Match, and safe Content-Type handling.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { ByteRange } from '../../platform/blob-store/blob-store.js';
import { isActiveContent } from './keys.js';
import type { ObjectRow, StorageService } from './storage.service.js';

/** A single `bytes=` range against `size`; undefined for none or several; 416 when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) {
    throw new AppError('RANGE_NOT_SATISFIABLE', 'The requested range is outside the object.', {
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  return { start, end };
}

const quoted = (etag: string) => `"${etag}"`;

/**
 * The headers that keep a stored object from acting as a page of this origin, for every path that
 * serves one (REST download, signed URL, public bucket, the S3 gateway's GetObject and HEAD): never
 * sniffed, and an active type (HTML, SVG, XML, script…) is a sandboxed attachment, so its script
 * cannot run here and read the dashboard's session.
 */
export function objectSafetyHeaders(mimeType: string, key: string): Record<string, string> {
  if (!isActiveContent(mimeType)) return { 'x-content-type-options': 'nosniff' };
  const name = key.split('/').pop() || 'download';
  return {
    'x-content-type-options': 'nosniff',
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    'content-security-policy': "sandbox; default-src 'none'",
  };
}

export async function sendObject(
  storage: StorageService,
  request: FastifyRequest,
  reply: FastifyReply,
  found: ObjectRow,
  principal: Principal | null,
): Promise<FastifyReply> {
  const size = Number(found.size);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('accept-ranges', 'bytes');
  reply.header('last-modified', found.updated_at.toUTCString());
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch &&
    (ifNoneMatch.trim() === '*' ||
      ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === quoted(found.etag)))
  ) {
    return reply.code(304).send();
  }
  const range = parseRange(request.headers.range, size);
  const { row, body } =
    request.method === 'HEAD' ? { row: found, body: undefined } : await storage.open(found, principal, range);
  reply.header('etag', quoted(row.etag));
  reply.header('content-type', row.mime_type).headers(objectSafetyHeaders(row.mime_type, row.key));
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
    reply.header('content-length', range.end - range.start + 1);
  } else {
    reply.header('content-length', size);
  }
  return reply.send(body);
}
