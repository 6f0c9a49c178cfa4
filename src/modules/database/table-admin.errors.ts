// PostgreSQL errors of table administration as the caller's 4xx: unknown or duplicate names,
// types that do not exist, defaults or existing rows that do not fit, objects still depending.
import { AppError, type ErrorCode } from '../../core/errors.js';
import { asPgError, errorCodeOf } from '../../core/pg-errors.js';

/** Where table administration differs from the one table: names already taken, objects in use. */
const OVERRIDES: Record<string, ErrorCode> = {
  '42P07': 'CONFLICT',
  '42701': 'CONFLICT',
  '42710': 'CONFLICT',
  '2BP01': 'CONFLICT',
};

const NEXT_ACTIONS: Record<string, string> = {
  '42P07': 'Choose another name.',
  '42701': 'Choose another column name.',
  '42710': 'Choose another name.',
  '42P01': 'Check the referenced table exists (GET /api/database/tables).',
  '42703': 'Check the column names (GET /api/database/tables/<table>/schema).',
  '42704': 'Use an existing PostgreSQL type, or one of string, integer, float, boolean, datetime, date, uuid, json.',
  '42804': 'The types do not match; convert the data first or pick a compatible type.',
  '42830': 'A foreign key must reference a primary key or unique column.',
  '42P16': 'The table definition is not valid.',
  '42611': 'The column definition is not valid.',
  '42601': 'Check the type and default value.',
  '2BP01': 'Other objects depend on it: drop or change them first (with a migration).',
  '55P03': 'The table is in use (locked); try again in a moment.',
  '42501': "The server's database login may not change this object.",
};

/** The AppError for a PostgreSQL failure the caller caused, or undefined. */
export function tableAdminError(err: unknown): AppError | undefined {
  const pg = asPgError(err);
  const code = pg && errorCodeOf(pg, { callerSql: true, overrides: OVERRIDES });
  if (!pg || !code) return undefined;
  // Classes 22 (data exception) and 23 (integrity): existing rows or a default do not fit.
  const nextActions =
    NEXT_ACTIONS[pg.code] ??
    (/^2[23]/.test(pg.code) ? 'The existing rows or the default value do not fit the change.' : undefined);
  return new AppError(code, pg.message, {
    cause: err,
    details: { code: pg.code, detail: pg.detail, hint: pg.hint },
    nextActions,
  });
}
