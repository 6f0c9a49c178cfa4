// Supabase storage's error shape on /storage/v1: every failure Plinth's one error handler renders
// ({error: CODE, message, statusCode: 404}) leaves as storage-api's {statusCode: "404", code, error,
// message}. storage-js reads `code` (exists() looks for NoSuchKey) and `message`.
import type { FastifyInstance } from 'fastify';

/** Plinth code → [storage-api code, storage-api error]. */
const NAMES: Record<string, [string, string]> = {
  OBJECT_NOT_FOUND: ['NoSuchKey', 'not_found'],
  STORAGE_NOT_FOUND: ['NoSuchBucket', 'Bucket not found'],
  NOT_FOUND: ['NoSuchKey', 'not_found'],
  STORAGE_ALREADY_EXISTS: ['Duplicate', 'Duplicate'],
  CONFLICT: ['InvalidRequest', 'Conflict'],
  STORAGE_PERMISSION_DENIED: ['AccessDenied', 'Unauthorized'],
  INSUFFICIENT_PERMISSIONS: ['AccessDenied', 'Unauthorized'],
  UNAUTHORIZED: ['InvalidJWT', 'Unauthorized'],
  AUTH_UNAUTHORIZED: ['InvalidJWT', 'Unauthorized'],
  PAYLOAD_TOO_LARGE: ['EntityTooLarge', 'Payload too large'],
  UNSUPPORTED_MEDIA_TYPE: ['InvalidMimeType', 'invalid_mime_type'],
  RANGE_NOT_SATISFIABLE: ['InvalidRange', 'Invalid Range'],
  TOO_MANY_REQUESTS: ['SlowDown', 'Too Many Requests'],
};

interface PlinthError {
  error: string;
  message: string;
  statusCode: number;
}

const isPlinthError = (body: unknown): body is PlinthError =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as PlinthError).error === 'string' &&
  typeof (body as PlinthError).statusCode === 'number';

/** The storage-api body for a Plinth error body. */
export function toStorageError(body: PlinthError) {
  const [code, error] = NAMES[body.error] ?? [
    body.statusCode >= 500 ? 'InternalError' : 'InvalidRequest',
    body.statusCode >= 500 ? 'internal' : 'Bad Request',
  ];
  return { statusCode: String(body.statusCode), code, error, message: body.message };
}

/** Rewrites the JSON error bodies of this scope's routes into storage-api's shape. */
export function useStorageErrorShape(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return done(null, payload);
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return done(null, payload);
    }
    if (!isPlinthError(body)) return done(null, payload);
    const rewritten = JSON.stringify(toStorageError(body));
    reply.header('content-length', Buffer.byteLength(rewritten));
    done(null, rewritten);
  });
}
