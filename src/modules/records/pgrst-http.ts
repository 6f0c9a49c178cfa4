// The HTTP side shared by records and RPC routes: bodies as PostgREST clients send them, the
// request parts the pipeline reads, and the answer it gives.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { AppError, ErrorCode } from '../../core/errors.js';
import type { PgrstHeaders, PgrstResponse } from './pgrst-request.js';
import type { AnyFastifyInstance } from '../../http/any-fastify.js';
import { parseJsonBodies } from '../../http/json-body.js';
import { fromCsv } from './media.js';
import { recordsError } from './records-errors.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * PostgREST clients send `Content-Type: application/json` on requests without a body (deletes,
 * argument-less calls); an empty body is then no body. (Scoped to the plugin that calls this.)
 */
export function acceptEmptyJsonBodies(app: AnyFastifyInstance, maxJsonDepth: number): void {
  parseJsonBodies(app, { maxDepth: maxJsonDepth, emptyIsUndefined: true, tooDeep: jsonTooDeep });
}

/** A body nested deeper than MAX_JSON_DEPTH: refused before it is parsed, in PostgREST's shape. */
export const jsonTooDeep = (max: number, field: string) =>
  recordsError('VALIDATION_ERROR', 'PGRST102', `The JSON body nests deeper than ${max} levels of objects and arrays`, {
    details: `${field === 'body' ? 'The body' : `'${field}'`} nests deeper than the ${max} levels of nested objects and arrays accepted (MAX_JSON_DEPTH).`,
    nextActions: `Flatten the JSON to at most ${max} levels, or store deeper documents as text.`,
  });

/** `Content-Type: text/csv` bodies (bulk inserts, as PostgREST takes them) as an array of objects. */
export function acceptCsvBodies(app: AnyFastifyInstance): void {
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, fromCsv(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** The raw query pairs (repeats kept, in order) and the headers that shape the answer. */
export function pgrstParts(request: FastifyRequest): { query: [string, string][]; headers: PgrstHeaders } {
  const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  return {
    query: [...new URLSearchParams(search)],
    headers: {
      prefer: header(request.headers.prefer),
      accept: header(request.headers.accept),
      range: header(request.headers.range),
      acceptProfile: header(request.headers['accept-profile']),
      contentProfile: header(request.headers['content-profile']),
    },
  };
}

export function sendPgrst(reply: FastifyReply, response: PgrstResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  return response.body === undefined ? reply.send() : reply.send(response.body);
}

const INVALID_JSON: [ErrorCode, string, string] = ['VALIDATION_ERROR', 'PGRST102', 'Empty or invalid json'];

/** Fastify's own request errors, by code, as PostgREST names them. */
const frameworkCodes: Record<string, [ErrorCode, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: INVALID_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: INVALID_JSON,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'VALIDATION_ERROR',
    'PGRST102',
    'The Content-Length header does not match the body',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'PGRST102', 'The request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'PGRST107', 'Content-Type not acceptable'],
};

/**
 * Errors Fastify raises before the pipeline runs (a malformed JSON body, a Content-Type it cannot
 * read, a bad path parameter) in PostgREST's shape too — code, details, hint — for the routes of
 * the plugin that calls this; everything else goes on to the application's error handler.
 */
export function pgrstFrameworkErrors(app: AnyFastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest) => {
    throw pgrstFrameworkError(err, request) ?? err;
  });
}

/** One of Fastify's own request errors in PostgREST's shape; undefined for any other error. */
export function pgrstFrameworkError(err: FastifyError, request: FastifyRequest): AppError | undefined {
  const known = err.code ? frameworkCodes[err.code] : undefined;
  if (known) {
    const contentType = known[1] === 'PGRST107' ? `: ${request.headers['content-type'] ?? ''}` : '';
    return recordsError(known[0], known[1], `${known[2]}${contentType}`, { details: err.message });
  }
  if (err instanceof SyntaxError && err.statusCode === 400)
    return recordsError(...INVALID_JSON, { details: err.message });
  if (hasZodFastifySchemaValidationErrors(err)) return recordsError('VALIDATION_ERROR', 'PGRST100', err.message);
  return undefined;
}
