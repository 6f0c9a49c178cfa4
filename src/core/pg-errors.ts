// Turns PostgreSQL errors raised by the platform's own queries into AppErrors with 4xx codes
// where the cause is the caller's input; anything else stays an internal error.
import { AppError } from './errors.js';

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  constraint_name?: string;
  column_name?: string;
}

const isPgError = (e: unknown): e is PgError =>
  typeof e === 'object' && e !== null && 'code' in e && typeof (e as PgError).code === 'string' &&
  (e as { name?: string }).name === 'PostgresError';

export function fromPgError(err: unknown): AppError | undefined {
  if (!isPgError(err)) return undefined;
  switch (err.code) {
    case '23505':
      return new AppError('CONFLICT', 'A record with the same unique value already exists.', {
        cause: err,
        details: err.detail,
      });
    case '23503':
      return new AppError('VALIDATION_ERROR', 'A referenced record does not exist.', {
        cause: err,
        details: err.detail,
      });
    case '23502':
      return new AppError('VALIDATION_ERROR', `The ${err.column_name ?? ''} field is required.`.replace('  ', ' '), {
        cause: err,
      });
    case '23514':
    case '22P02':
    case '22023':
    case '22001':
      return new AppError('VALIDATION_ERROR', err.message, { cause: err });
    case '22P05': // untranslatable_character: "\u0000" inside JSON
    case '22021': // character_not_in_repertoire: a NUL byte in a text parameter
      // Only the caller's text can carry these; PostgreSQL cannot store NUL characters.
      return new AppError('VALIDATION_ERROR', 'Text must not contain NUL (\\u0000) characters.', { cause: err });
    case '42501':
      return new AppError('FORBIDDEN', err.message, { cause: err });
    case '57014':
      // statement_timeout (or a cancel): the statement, not the service, is the problem.
      return new AppError('GATEWAY_TIMEOUT', 'The query took too long and was cancelled.', {
        cause: err,
        nextActions: 'Narrow the query (filters on indexed columns, fewer rows), or raise the statement timeout.',
      });
    default:
      return undefined;
  }
}
