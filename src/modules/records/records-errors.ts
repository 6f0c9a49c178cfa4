// Errors of the records API: the spec's shape plus PostgREST's `code`, `details` and `hint`, so
// PostgREST clients keep working; PostgreSQL errors mapped to HTTP by SQLSTATE.
import { AppError, type ErrorCode } from '../../core/errors.js';
import { asPgError, errorCodeForSqlState } from '../../core/pg-errors.js';

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

/** Where the records API differs from the one table: PostgREST's statuses. */
function statusOf(sqlstate: string, anonymous: boolean): ErrorCode | undefined {
  return errorCodeForSqlState(sqlstate, {
    callerSql: true,
    overrides: {
      '23503': 'CONFLICT',
      '42P01': 'NOT_FOUND',
      '42883': 'NOT_FOUND',
      ...(anonymous ? { '42501': 'UNAUTHORIZED' as const } : {}),
    },
  });
}

const NEXT_ACTIONS: Record<string, string> = {
  '42501': 'Row-level security or grants refuse this; check the policies of the table.',
  '57014':
    'The statement ran past the statement timeout of your role and was cancelled: narrow it (filters on indexed columns, simpler patterns, fewer rows), or raise ANON_STATEMENT_TIMEOUT_MS / AUTHENTICATED_STATEMENT_TIMEOUT_MS.',
};

/** A PostgreSQL error raised by a records query, as the client should see it. */
export function fromPostgresError(err: unknown, anonymous: boolean): AppError | undefined {
  const pg = asPgError(err);
  const code = pg && statusOf(pg.code, anonymous);
  if (!pg || !code) return undefined;
  return new AppError(code, pg.message ?? 'Database error', {
    cause: err,
    nextActions: NEXT_ACTIONS[pg.code],
    fields: { code: pg.code, details: pg.detail ?? null, hint: pg.hint ?? null },
  });
}
