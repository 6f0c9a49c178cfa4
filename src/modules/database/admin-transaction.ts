// Runs an admin's SQL in one transaction on a connection of its own, and hands the connection
// back to the pool with its session state reset (settings, locks, temporary tables…), so nothing
// the SQL left behind leaks into the requests that use the connection next. SQL failures name the statement.
import type postgres from 'postgres';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { asPgError, callerStatementErrorCode } from '../../core/pg-errors.js';

export type Conn = postgres.ReservedSql;

export async function inAdminTransaction<T>(
  sql: Sql,
  work: (conn: Conn) => Promise<T>,
  options: { rollback?: boolean } = {},
): Promise<T> {
  const conn = await sql.reserve();
  try {
    await conn`begin`;
    let result: T;
    try {
      result = await work(conn);
    } catch (err) {
      await conn`rollback`.catch(() => {});
      throw err;
    }
    await (options.rollback ? conn`rollback` : conn`commit`);
    return result;
  } finally {
    // DISCARD ALL without its DEALLOCATE ALL (the driver's own prepared statements must survive):
    // settings, cursors, LISTENs, session advisory locks, temporary tables and sequences.
    await conn
      .unsafe('reset all; close all; unlisten *; select pg_advisory_unlock_all(); discard temp; discard sequences')
      .simple()
      .catch(() => {});
    conn.release();
  }
}

/** Runs statement `index` (1-based) of an admin's SQL; its PostgreSQL error gets the table's status (else 400). */
export async function runStatement(conn: Conn, text: string, index: number, params: unknown[] = []) {
  try {
    return await conn.unsafe(text, params as never[]);
  } catch (err) {
    const pg = asPgError(err);
    if (!pg) throw err;
    // Nothing of the transaction applied; the status is the one table's (409 duplicate, 403 refused,
    // 504 timed out, 503 connection gone), and any other failure is the caller's 400.
    const code = callerStatementErrorCode(pg);
    const timedOut = code === 'GATEWAY_TIMEOUT';
    throw new AppError(code, `Statement ${index} failed: ${pg.message}`, {
      cause: err,
      details: { statement: index, sql: text, code: pg.code, detail: pg.detail, hint: pg.hint, position: pg.position },
      nextActions: timedOut
        ? 'The statement ran past the statement timeout; make it cheaper.'
        : 'Nothing was applied. Fix the statement and try again.',
    });
  }
}

/** From here on the transaction acts as project_admin (row-level security applies). */
export const actAsProjectAdmin = (conn: Conn) =>
  conn`select set_config('role', 'project_admin', true),
              set_config('request.jwt.claims', ${JSON.stringify({ role: 'project_admin' })}, true)`;

/** From here on the transaction acts as the server's own login again. */
export const actAsOwner = (conn: Conn) => conn`select set_config('role', 'none', true)`;
