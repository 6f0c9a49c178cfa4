// Turns PostgreSQL errors raised by the platform's own queries into AppErrors with 4xx codes
// where the cause is the caller's input, and a lost or refused database connection into a
// retryable 503; anything else stays an internal error.
import { AppError } from './errors.js';

const RETRY_AFTER_SECONDS = '1';

/** 503 for a database that cannot take this request now; clients retry after a second. */
export function unavailable(message: string, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, {
    cause,
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
    nextActions: 'Retry the request after the number of seconds in the Retry-After header.',
  });
}

/** postgres.js's own connection errors and the socket errors it passes on. */
const DRIVER_CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** SQLSTATEs that say the server went away or will not take a connection, not that the query was wrong. */
const isConnectionSqlState = (code: string): boolean =>
  code.startsWith('08') || // connection_exception
  code === '57P01' || // admin_shutdown (pg_terminate_backend, fast shutdown)
  code === '57P02' || // crash_shutdown
  code === '57P03' || // cannot_connect_now (starting up, recovering)
  code === '53300'; // too_many_connections

/** A failure of the database connection itself (retry later), or undefined for anything else. */
export function connectionFailure(err: unknown): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, name } = err as { code?: unknown; name?: unknown };
  if (typeof code !== 'string') return undefined;
  const lost = name === 'PostgresError' ? isConnectionSqlState(code) : DRIVER_CONNECTION_CODES.has(code);
  return lost ? unavailable('The database connection failed; the request was not completed.', err) : undefined;
}

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  constraint_name?: string;
  column_name?: string;
}

const isPgError = (e: unknown): e is PgError =>
  typeof e === 'object' &&
  e !== null &&
  'code' in e &&
  typeof (e as PgError).code === 'string' &&
  (e as { name?: string }).name === 'PostgresError';

export function fromPgError(err: unknown): AppError | undefined {
  const lost = connectionFailure(err);
  if (lost) return lost;
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
