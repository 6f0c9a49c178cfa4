// Errors of the records API: the spec's shape plus PostgREST's `code`, `details` and `hint`, so
// PostgREST clients keep working; PostgreSQL errors mapped to HTTP by SQLSTATE.
import { AppError, type ErrorCode } from '../../core/errors.js';

export function recordsError(
  code: ErrorCode,
  pgrstCode: string,
  message: string,
  extra: { details?: string | null; hint?: string | null; nextActions?: string } = {},
): AppError {
  return new AppError(code, message, {
    nextActions: extra.nextActions,
    fields: { code: pgrstCode, details: extra.details ?? null, hint: extra.hint ?? null },
  });
}

interface PgError {
  name?: string;
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

const isPgError = (e: unknown): e is PgError =>
  typeof e === 'object' &&
  e !== null &&
  (e as PgError).name === 'PostgresError' &&
  typeof (e as PgError).code === 'string';

function statusOf(sqlstate: string, anonymous: boolean): ErrorCode {
  if (sqlstate === '23505' || sqlstate === '23503') return 'CONFLICT';
  if (sqlstate === '42501') return anonymous ? 'UNAUTHORIZED' : 'FORBIDDEN';
  if (sqlstate === '42P01' || sqlstate === '42883') return 'NOT_FOUND';
  if (sqlstate === '57014') return 'GATEWAY_TIMEOUT';
  if (sqlstate.startsWith('08') || sqlstate === '53300' || sqlstate === '57P03') return 'SERVICE_UNAVAILABLE';
  if (/^(22|23|42|P0|2F|0L|0P)/.test(sqlstate)) return 'VALIDATION_ERROR';
  return 'INTERNAL_ERROR';
}

const NEXT_ACTIONS: Record<string, string> = {
  '42501': 'Row-level security or grants refuse this; check the policies of the table.',
  '57014':
    'The statement ran past the statement timeout of your role and was cancelled: narrow it (filters on indexed columns, simpler patterns, fewer rows), or raise ANON_STATEMENT_TIMEOUT_MS / AUTHENTICATED_STATEMENT_TIMEOUT_MS.',
};

/** A PostgreSQL error raised by a records query, as the client should see it. */
export function fromPostgresError(err: unknown, anonymous: boolean): AppError | undefined {
  if (!isPgError(err)) return undefined;
  const code = statusOf(err.code!, anonymous);
  if (code === 'INTERNAL_ERROR') return undefined;
  return new AppError(code, err.message ?? 'Database error', {
    cause: err,
    nextActions: NEXT_ACTIONS[err.code!],
    fields: { code: err.code, details: err.detail ?? null, hint: err.hint ?? null },
  });
}
