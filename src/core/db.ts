// The PostgreSQL pool, transactions, and the per-request scope that row-level security reads.
import postgres from 'postgres';

export type Sql = postgres.Sql;
/** Anything a repository can run SQL on: the pool or an open transaction. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface PoolOptions {
  max?: number;
  applicationName?: string;
}

export function createPool(url: string, options: PoolOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'plinth' },
  });
}

export function withTx<T>(sql: Sql, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(work) as Promise<T>;
}

/** Who a request runs as inside PostgreSQL. */
export interface RequestScope {
  role: 'anon' | 'authenticated' | 'project_admin';
  claims: Record<string, unknown>;
  /** `Prefer: timezone=…` (already checked against pg_timezone_names): the transaction's TimeZone. */
  timezone?: string;
  /** The statement_timeout of the transaction's statements (by role; 0: none); unset keeps the server's. */
  statementTimeoutMs?: number;
}

/**
 * The scope statement: role, claims, the statement timeout and, only when one is asked for, the
 * TimeZone, all set in one statement local to the transaction. Every value is bound as text, so
 * the driver has nothing to serialise that could throw. The timeout binds the statements after
 * this one (PostgreSQL arms it as each statement starts).
 */
function scopeStatement(conn: postgres.Sql, scope: RequestScope) {
  const params = [scope.role, JSON.stringify(scope.claims)];
  let text = "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)";
  if (scope.statementTimeoutMs !== undefined) {
    params.push(String(scope.statementTimeoutMs));
    text += `, set_config('statement_timeout', $${params.length}, true)`;
  }
  if (scope.timezone !== undefined) {
    params.push(scope.timezone);
    text += `, set_config('timezone', $${params.length}, true)`;
  }
  return conn.unsafe(text, params, { prepare: true });
}

/**
 * Runs `work` in one transaction whose first statement switches to the request's role and
 * publishes its claims (read by auth.uid() and friends), both local to the transaction.
 *
 * BEGIN, the scope statement and the work's first query go out together on one reserved
 * connection (one round trip), then COMMIT: two round trips where `sql.begin` takes three.
 */
export async function withRequestScope<T>(
  sql: Sql,
  scope: RequestScope,
  work: (tx: postgres.Sql) => Promise<T>,
): Promise<T> {
  const conn = await sql.reserve();
  try {
    const opened = Promise.all([
      conn`begin`.execute(),
      scopeStatement(conn, scope).execute(),
    ]);
    let result: T;
    try {
      result = await work(conn);
      await opened;
    } catch (err) {
      await opened.catch(() => {});
      await conn`rollback`.catch(() => {});
      throw err;
    }
    await conn`commit`;
    return result;
  } finally {
    conn.release();
  }
}

/**
 * One statement in a request's scope, in one round trip: BEGIN, the scope statement, the
 * (prepared) statement and COMMIT are written together on a reserved connection. A failed
 * statement aborts the transaction, so the pipelined COMMIT rolls it back.
 */
export async function runScoped(
  sql: Sql,
  scope: RequestScope,
  text: string,
  params: unknown[],
): Promise<postgres.RowList<postgres.Row[]>> {
  const conn = await sql.reserve();
  try {
    const [begin, scoped, statement, commit] = await Promise.allSettled([
      conn`begin`.execute(),
      scopeStatement(conn, scope).execute(),
      conn.unsafe(text, params as never[], { prepare: true }).execute(),
      conn`commit`.execute(),
    ]);
    for (const step of [begin, scoped, statement, commit]) if (step.status === 'rejected') throw step.reason;
    return (statement as PromiseFulfilledResult<postgres.RowList<postgres.Row[]>>).value;
  } finally {
    conn.release();
  }
}
