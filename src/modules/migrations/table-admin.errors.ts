// PostgreSQL errors of table administration as the caller's 4xx: unknown or duplicate names,
// types that do not exist, defaults or existing rows that do not fit, objects still depending.
import { AppError, type ErrorCode } from '../../core/errors.js';
import type { PgFailure } from './admin-transaction.js';

const CODES: Record<string, [ErrorCode, string]> = {
  '42P07': ['CONFLICT', 'Choose another name.'],
  '42701': ['CONFLICT', 'Choose another column name.'],
  '42710': ['CONFLICT', 'Choose another name.'],
  '42P01': ['VALIDATION_ERROR', 'Check the referenced table exists (GET /api/database/tables).'],
  '42703': ['VALIDATION_ERROR', 'Check the column names (GET /api/database/tables/<table>/schema).'],
  '42704': [
    'VALIDATION_ERROR',
    'Use an existing PostgreSQL type, or one of string, integer, float, boolean, datetime, date, uuid, json.',
  ],
  '42804': ['VALIDATION_ERROR', 'The types do not match; convert the data first or pick a compatible type.'],
  '42830': ['VALIDATION_ERROR', 'A foreign key must reference a primary key or unique column.'],
  '42P16': ['VALIDATION_ERROR', 'The table definition is not valid.'],
  '42611': ['VALIDATION_ERROR', 'The column definition is not valid.'],
  '42601': ['VALIDATION_ERROR', 'Check the type and default value.'],
  '2BP01': ['CONFLICT', 'Other objects depend on it: drop or change them first (with a migration).'],
  '55P03': ['CONFLICT', 'The table is in use (locked); try again in a moment.'],
  '42501': ['FORBIDDEN', "The server's database login may not change this object."],
};

/** The AppError for a PostgreSQL failure the caller caused, or undefined. */
export function tableAdminError(err: unknown): AppError | undefined {
  const pg = err as PgFailure;
  if (pg?.name !== 'PostgresError' || !pg.code) return undefined;
  const known = CODES[pg.code];
  // Classes 22 (data exception) and 23 (integrity): existing rows or a default do not fit.
  const [code, nextActions] =
    known ??
    (/^2[23]/.test(pg.code)
      ? ['VALIDATION_ERROR', 'The existing rows or the default value do not fit the change.']
      : [undefined, '']);
  if (!code) return undefined;
  return new AppError(code, pg.message, {
    cause: err,
    details: { code: pg.code, detail: pg.detail, hint: pg.hint },
    nextActions,
  });
}
