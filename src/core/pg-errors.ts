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
  code === '53300' || // too_many_connections
  code === '53000'; // insufficient_resources

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
  '23503': 'VALIDATION_ERROR', // foreign_key_violation: the referenced record does not exist (see STILL_REFERENCED)
  '23502': 'VALIDATION_ERROR', // not_null_violation
  '23514': 'VALIDATION_ERROR', // check_violation
  '22P02': 'VALIDATION_ERROR', // invalid_text_representation
  '22023': 'VALIDATION_ERROR', // invalid_parameter_value
  '22001': 'VALIDATION_ERROR', // string_data_right_truncation
  '22P05': 'VALIDATION_ERROR', // untranslatable_character ("\u0000" inside JSON)
  '22021': 'VALIDATION_ERROR', // character_not_in_repertoire (a NUL byte in text)
  '42501': 'FORBIDDEN', // insufficient_privilege (grants, row-level security)
  '57014': 'GATEWAY_TIMEOUT', // query_canceled: statement_timeout, the same 504 everywhere
  '55P03': 'CONFLICT', // lock_not_available: NOWAIT or lock_timeout; another operation holds the lock
  '40P01': 'CONFLICT', // deadlock_detected: this transaction was rolled back to end a deadlock
  '25006': 'SERVICE_UNAVAILABLE', // read_only_sql_transaction: the database takes no writes now
  // in_failed_sql_transaction: an earlier statement of the transaction failed; that one is the
  // cause, never the caller (a 500, logged with where the query came from).
  '25P02': 'INTERNAL_ERROR',
};

/**
 * 23503 raised by a delete or update of a row that other rows still reference: the caller's
 * request conflicts with the data (409), unlike an insert naming a row that does not exist (400).
 * PostgreSQL says which in the message and detail only (the SQLSTATE and fields are the same);
 * with a non-English lc_messages neither matches and the answer is the 400.
 */
const STILL_REFERENCED: ErrorCode = 'CONFLICT';
const isStillReferenced = (pg: Pick<PgError, 'code' | 'message' | 'detail'>): boolean =>
  pg.code === '23503' &&
  (/ is still referenced from table /.test(pg.detail ?? '') || /^update or delete on table /.test(pg.message));

/** In SQL the caller wrote (records queries, RPC, migrations, admin SQL) these classes are the caller's mistake. */
const CALLER_SQL_CLASSES = /^(22|23|42|P0|2F|0L|0P)/;

export interface SqlStateContext {
  /** The statement is the caller's (a 4xx for its classes of mistakes), not the platform's own. */
  callerSql?: boolean;
  /** Where a context really differs (records answer 42P01 with 404 as PostgREST does). */
  overrides?: Readonly<Record<string, ErrorCode>>;
}

/** The error code for a PostgreSQL error, or undefined when it is an internal error (a 500). */
export function errorCodeOf(
  pg: Pick<PgError, 'code' | 'message' | 'detail'>,
  context: SqlStateContext = {},
): ErrorCode | undefined {
  const sqlstate = pg.code;
  if (isConnectionSqlState(sqlstate)) return 'SERVICE_UNAVAILABLE';
  const code =
    context.overrides?.[sqlstate] ?? (isStillReferenced(pg) ? STILL_REFERENCED : undefined) ?? BY_SQLSTATE[sqlstate];
  if (code) return code;
  return context.callerSql && CALLER_SQL_CLASSES.test(sqlstate) ? 'VALIDATION_ERROR' : undefined;
}

/** The error code of a statement the caller sent (admin SQL, a bulk file): the table's, else the caller's 400. */
export const callerStatementErrorCode = (pg: PgError, overrides?: SqlStateContext['overrides']): ErrorCode =>
  errorCodeOf(pg, { callerSql: true, overrides }) ?? 'VALIDATION_ERROR';

/** Clearer words than PostgreSQL's for the errors the platform's own queries meet. */
function messageOf(err: PgError): string {
  switch (err.code) {
    case '23505':
      return 'A record with the same unique value already exists.';
    case '23503':
      return isStillReferenced(err)
        ? 'The record is still referenced by other records.'
        : 'A referenced record does not exist.';
    case '23502':
      return `The ${err.column_name ?? ''} field is required.`.replace('  ', ' ');
    case '22P05':
    case '22021':
      // Only the caller's text can carry these; PostgreSQL cannot store NUL characters.
      return 'Text must not contain NUL (\\u0000) characters.';
    case '57014':
      return 'The query took too long and was cancelled.';
    case '55P03':
      return 'Another operation holds a lock on this data; nothing was changed.';
    case '40P01':
      return 'The database ended this request to break a deadlock with another operation; nothing was changed.';
    case '25006':
      return 'The database accepts no writes right now; nothing was written.';
    case '25P02':
      return 'An earlier statement of the same transaction failed; nothing was written.';
    default:
      return err.message;
  }
}

const NEXT_ACTIONS: Record<string, string> = {
  '57014': 'Narrow the query (filters on indexed columns, fewer rows), or raise the statement timeout.',
  '55P03': 'Try again in a moment, when the other operation has finished.',
  '40P01': 'Try again: the operation it deadlocked with has gone on.',
  '25006': 'Retry the request after the number of seconds in the Retry-After header.',
};

/** A PostgreSQL error of one of the platform's own queries, as the client should see it. */
export function fromPgError(err: unknown): AppError | undefined {
  const lost = connectionFailure(err);
  if (lost) return lost;
  const pg = asPgError(err);
  const code = pg && errorCodeOf(pg);
  if (!pg || !code) return undefined;
  const details = pg.code === '23505' || pg.code === '23503' ? pg.detail : undefined;
  const headers = code === 'SERVICE_UNAVAILABLE' ? { 'retry-after': RETRY_AFTER_SECONDS } : undefined;
  return new AppError(code, messageOf(pg), { cause: err, details, headers, nextActions: NEXT_ACTIONS[pg.code] });
}

/**
 * One module's declared meaning of some SQLSTATEs in its own context ("here 23505 means this
 * snippet name is taken"): the AppError to answer instead of the table's.
 */
export type PgOverrides = Readonly<Record<string, (pg: PgError, cause: unknown) => AppError>>;

/**
 * Runs `work`; a PostgreSQL error whose SQLSTATE `overrides` declares becomes that AppError, and
 * every other error passes on unchanged (the error handler maps it through the table).
 */
export async function withPgOverrides<T>(overrides: PgOverrides, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw overriddenPgError(overrides, err) ?? err;
  }
}

/** The AppError `overrides` declares for this error's SQLSTATE, or undefined (not a PostgreSQL error, or not declared). */
export function overriddenPgError(overrides: PgOverrides, err: unknown): AppError | undefined {
  const pg = asPgError(err);
  return pg && overrides[pg.code]?.(pg, err);
}

/** Frames of Plinth's own data layer, best first: the repo function that sent the query. */
const REPO_FRAME = /at (?:async )?([\w.<>$]+) \(?[^()\n]*\/src\/(modules\/[\w/-]+\.repo)\.[jt]s:\d+/;
const SRC_FRAME = /at (?:async )?([\w.<>$]+) \(?[^()\n]*\/src\/((?:modules|core|http)\/[\w/-]+)\.[jt]s:\d+/;

/**
 * Where a failed query was sent from ("listSecrets in modules/secrets/secrets.repo"), read from the
 * call-site stack postgres.js appends to a tagged query's error; undefined when there is none (an
 * unsafe() query). Parses a stack, so it is called only when a 5xx is logged.
 */
export function queryOrigin(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e; depth++) {
    const pg = asPgError(e);
    if (pg) {
      const stack = (pg as { stack?: string }).stack ?? '';
      const frame =
        REPO_FRAME.exec(stack) ?? SRC_FRAME.exec(stack.replace(/^.*\/src\/core\/(db|pg-errors)\..*$/gm, ''));
      return frame ? `${frame[1]} in ${frame[2]}` : undefined;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
