// Errors of the records API: the spec's shape plus PostgREST's `code`, `details` and `hint`, so
// PostgREST clients keep working; PostgreSQL errors mapped to HTTP by SQLSTATE.
import { AppError, type ErrorCode } from '../../core/errors.js';
import { asPgError, errorCodeOf, type PgError } from '../../core/pg-errors.js';

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
const OVERRIDES = {
  '42P01': 'NOT_FOUND',
  '42883': 'NOT_FOUND',
  // A write in a read-only call (GET, or a function that is not volatile): the method's fault.
  '25006': 'METHOD_NOT_ALLOWED',
} as const satisfies Record<string, ErrorCode>;
const ANONYMOUS_OVERRIDES = { ...OVERRIDES, '42501': 'UNAUTHORIZED' } as const satisfies Record<string, ErrorCode>;

const statusOf = (pg: PgError, anonymous: boolean): ErrorCode | undefined =>
  errorCodeOf(pg, { callerSql: true, overrides: anonymous ? ANONYMOUS_OVERRIDES : OVERRIDES });

const NEXT_ACTIONS: Record<string, string> = {
  '25006': 'Call functions that write with POST, and declare them VOLATILE (the default).',
  '42501': 'Row-level security or grants refuse this; check the policies of the table.',
  '57014':
    'The statement ran past the statement timeout of your role and was cancelled: narrow it (filters on indexed columns, simpler patterns, fewer rows), or raise ANON_STATEMENT_TIMEOUT_MS / AUTHENTICATED_STATEMENT_TIMEOUT_MS.',
};

/** A PostgreSQL error raised by a records query, as the client should see it. */
export function fromPostgresError(err: unknown, anonymous: boolean): AppError | undefined {
  const pg = asPgError(err);
  const code = pg && statusOf(pg, anonymous);
  if (!pg || !code) return undefined;
  return new AppError(code, pg.message ?? 'Database error', {
    cause: err,
    nextActions: NEXT_ACTIONS[pg.code],
    fields: { code: pg.code, details: pg.detail ?? null, hint: pg.hint ?? null },
  });
}
