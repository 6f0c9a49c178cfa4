// The one place errors become responses: every failure leaves in the spec's error shape, with a
// 4xx for anything the caller can fix and a bare 500 (plus request id) for everything else.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, toErrorBody, type ErrorCode } from '../core/errors.js';
import { fromPgError, queryOrigin } from '../core/pg-errors.js';
import { AT_CAPACITY } from '../core/pool-guard.js';
import { fixFor, nextActionsOf } from './validation-fixes.js';

interface ValidationIssue {
  field: string;
  rule: string;
  message: string;
}

function validationError(
  issues: { instancePath: string; keyword: string; message?: string; params?: unknown }[],
  context: string | undefined,
): AppError {
  const fieldOf = (...path: string[]) =>
    [context === 'body' ? '' : context, ...path].filter(Boolean).join('.') || (context ?? 'request');
  const refused = issues.flatMap((i) => {
    const path = i.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const params = (i.params ?? {}) as Record<string, unknown>;
    const message = i.message ?? 'is invalid';
    // zod reports unknown keys once, on their parent object; the caller needs the keys' names.
    const unknownKeys = i.keyword === 'unrecognized_keys' ? params.keys : undefined;
    if (Array.isArray(unknownKeys) && unknownKeys.length > 0) {
      return unknownKeys.map((key) => {
        const field = fieldOf(path, String(key));
        return {
          field,
          rule: i.keyword,
          message: 'is not a known field',
          fix: fixFor(field, i.keyword, params, message),
        };
      });
    }
    const field = fieldOf(path);
    return [{ field, rule: i.keyword, message, fix: fixFor(field, i.keyword, params, message) }];
  });
  const details: ValidationIssue[] = refused.map(({ field, rule, message }) => ({ field, rule, message }));
  const message = details.map((d) => `${d.field}: ${d.message}`).join(', ');
  return new AppError('VALIDATION_ERROR', message, { details, nextActions: nextActionsOf(refused.map((r) => r.fix)) });
}

const JSON_HINT = 'Please ensure your request body contains valid JSON.';

/** Fastify's own 4xx errors (body parsing, content type, size) in Plinth's vocabulary. */
const fastifyCodes: Record<string, [ErrorCode, string, string?]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    'VALIDATION_ERROR',
    'The body is empty but Content-Type is application/json.',
    JSON_HINT,
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: ['VALIDATION_ERROR', 'The request body is not valid JSON.', JSON_HINT],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['VALIDATION_ERROR', 'The Content-Length header does not match the body.'],
  FST_ERR_BAD_URL: ['VALIDATION_ERROR', 'The URL is not valid: a path segment has malformed percent-encoding.'],
  FST_ERR_MAX_PARAM_LENGTH: ['VALIDATION_ERROR', 'A path parameter is too long.'],
};

export function toAppError(err: FastifyError | Error): AppError | undefined {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    return validationError(err.validation, (err as { validationContext?: string }).validationContext);
  }
  const fastifyError = err as FastifyError;
  const known = fastifyError.code ? fastifyCodes[fastifyError.code] : undefined;
  if (known) return new AppError(known[0], known[1], { nextActions: known[2] });
  if (err instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'The request body is not valid JSON.', { nextActions: JSON_HINT });
  }
  const fromPg = fromPgError(err);
  if (fromPg) return fromPg;
  const status = fastifyError.statusCode;
  if (status === 429) return new AppError('TOO_MANY_REQUESTS');
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('VALIDATION_ERROR', err.message);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(toErrorBody(err));
}

/** The log fields of a 5xx: the error, and for a database error the function that sent the query. */
function failureLog(err: unknown): { err: unknown; dbQueryFrom?: string } {
  const from = queryOrigin(err); // parses a stack: only here, on the 5xx path
  return from ? { err, dbQueryFrom: from } : { err };
}

function handleError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(err);
  if (appError) {
    // A refusal for capacity is not a fault, and one log line each would add to the overload.
    if (appError.message === AT_CAPACITY) request.log.debug(appError.message);
    else if (appError.statusCode >= 500) request.log.error(failureLog(err), appError.message);
    return sendError(reply, appError);
  }
  request.log.error(failureLog(err), 'unhandled error');
  return reply.code(500).send({
    error: 'INTERNAL_ERROR',
    message: `An unexpected error occurred. Quote request id ${request.id} when reporting it.`,
    statusCode: 500,
    requestId: request.id,
  });
}

/**
 * Fastify's `frameworkErrors` option: the router rejects some URLs (bad percent-encoding, an
 * over-long path parameter) before any route or error handler runs, in a shape of its own.
 */
export const frameworkErrors = (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
  handleError(err, request, reply);
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError);

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new AppError('NOT_FOUND', `Endpoint ${request.method} ${request.url.split('?')[0]} not found.`, {
        nextActions: 'Check the API reference at /api/reference for the available endpoints.',
      }),
    ),
  );
}
