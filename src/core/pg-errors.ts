// Turns PostgreSQL errors raised by the platform's own queries into AppErrors with 4xx codes
// where the cause is the caller's input, and a lost or refused database connection into a
// retryable 503; anything else stays an internal error.
import { AppError, type ErrorCode } from './errors.js';

const RETRY_AFTER_SECONDS = '1';

/** 503 for a database that cannot take this request now; clients retry after a second. */
export function unavailable(message: string, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, {
    cause,
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
    nextActions: 'Retry the request after the number of seconds in the Retry-After header.',
  });
}

/** Where a client that got OUTCOME_UNKNOWN goes next. */
export const OUTCOME_UNKNOWN_NEXT_ACTIONS =
  'Do not simply retry: read the data to check whether the write took effect, or retry with the same ' +
  'Idempotency-Key header (records inserts and function calls), which answers with the first outcome instead of writing twice.';

/**
 * 503 OUTCOME_UNKNOWN: a write was sent to the database and its answer did not come (deadline,
 * lost connection); it may have committed. Not "not completed": a blind retry could write twice.
 */
export function outcomeUnknown(message: string, cause?: unknown): AppError {
  return new AppError('OUTCOME_UNKNOWN', `${message} The write may or may not have taken effect.`, {
    cause,
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
    nextActions: OUTCOME_UNKNOWN_NEXT_ACTIONS,
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

/**
 * object_not_in_prerequisite_state as a FATAL error (it ends the session): the database does not
 * accept connections now (ALTER DATABASE … ALLOW_CONNECTIONS false). The same SQLSTATE raised by a
 * statement (e.g. currval before nextval) is an ERROR, not about the connection. `severity` is the
 * untranslated one (unlike the message).
 */
const isRefusedAtConnect = (err: PgError): boolean => err.code === '55000' && err.severity === 'FATAL';

/** An error PostgreSQL raised (postgres.js's PostgresError), with the fields Plinth reads. */
export interface PgError {
  name: 'PostgresError';
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  position?: string;
  constraint_name?: string;
  column_name?: string;
  /** ERROR, FATAL or PANIC, never translated (FATAL: the session ended with it). */
  severity?: string;
}

/** The one "is this a PostgreSQL error" check. */
export function asPgError(err: unknown): PgError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { name, code } = err as { name?: unknown; code?: unknown };
  return name === 'PostgresError' && typeof code === 'string' ? (err as PgError) : undefined;
}

/** A failure of the database connection itself (retry later), or undefined for anything else. */
export function connectionFailure(err: unknown): AppError | undefined {
  const pg = asPgError(err);
  const code = pg ? pg.code : (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const lost = pg ? isConnectionSqlState(code) || isRefusedAtConnect(pg) : DRIVER_CONNECTION_CODES.has(code);
  return lost ? unavailable('The database connection failed; the request was not completed.', err) : undefined;
}

/** The one SQLSTATE table: what a PostgreSQL error means to the client, wherever it was raised. */
const BY_SQLSTATE: Record<string, ErrorCode> = {
  '23505': 'CONFLICT', // unique_violation
  '23503': 'VALIDATION_ERROR', // foreign_key_violation: the referenced record does not exist
  '23502': 'VALIDATION_ERROR', // not_null_violation
  '23514': 'VALIDATION_ERROR', // check_violation
  '22P02': 'VALIDATION_ERROR', // invalid_text_representation
  '22023': 'VALIDATION_ERROR', // invalid_parameter_value
  '22001': 'VALIDATION_ERROR', // string_data_right_truncation
  '22P05': 'VALIDATION_ERROR', // untranslatable_character ("\u0000" inside JSON)
  '22021': 'VALIDATION_ERROR', // character_not_in_repertoire (a NUL byte in text)
  '42501': 'FORBIDDEN', // insufficient_privilege (grants, row-level security)
  '57014': 'GATEWAY_TIMEOUT', // query_canceled: statement_timeout, the same 504 everywhere
};

/** In SQL the caller wrote (records queries, RPC, migrations, admin SQL) these classes are the caller's mistake. */
const CALLER_SQL_CLASSES = /^(22|23|42|P0|2F|0L|0P)/;

export interface SqlStateContext {
  /** The statement is the caller's (a 4xx for its classes of mistakes), not the platform's own. */
  callerSql?: boolean;
  /** Where a context really differs (records answer 23503 with 409 as PostgREST does). */
  overrides?: Record<string, ErrorCode>;
}

/** The error code for a SQLSTATE, or undefined when it is an internal error (a 500). */
export function errorCodeForSqlState(sqlstate: string, context: SqlStateContext = {}): ErrorCode | undefined {
  if (isConnectionSqlState(sqlstate)) return 'SERVICE_UNAVAILABLE';
  const code = context.overrides?.[sqlstate] ?? BY_SQLSTATE[sqlstate];
  if (code) return code;
  return context.callerSql && CALLER_SQL_CLASSES.test(sqlstate) ? 'VALIDATION_ERROR' : undefined;
}

/** Clearer words than PostgreSQL's for the errors the platform's own queries meet. */
function messageOf(err: PgError): string {
  switch (err.code) {
    case '23505':
      return 'A record with the same unique value already exists.';
    case '23503':
      return 'A referenced record does not exist.';
    case '23502':
      return `The ${err.column_name ?? ''} field is required.`.replace('  ', ' ');
    case '22P05':
    case '22021':
      // Only the caller's text can carry these; PostgreSQL cannot store NUL characters.
      return 'Text must not contain NUL (\\u0000) characters.';
    case '57014':
      return 'The query took too long and was cancelled.';
    default:
      return err.message;
  }
}

/** A PostgreSQL error of one of the platform's own queries, as the client should see it. */
export function fromPgError(err: unknown): AppError | undefined {
  const lost = connectionFailure(err);
  if (lost) return lost;
  const pg = asPgError(err);
  const code = pg && errorCodeForSqlState(pg.code);
  if (!pg || !code) return undefined;
  const details = pg.code === '23505' || pg.code === '23503' ? pg.detail : undefined;
  const nextActions =
    pg.code === '57014'
      ? 'Narrow the query (filters on indexed columns, fewer rows), or raise the statement timeout.'
      : undefined;
  return new AppError(code, messageOf(pg), { cause: err, details, nextActions });
}
