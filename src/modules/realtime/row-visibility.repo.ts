// SQL of row-change filtering: which subscriber scopes may SELECT a changed row under RLS at
// delivery time. One transaction as the server's role, always rolled back: for each scope (one
// per group of subscribers with the same role and claims) one query runs under that role and
// claims, as the records API's request scope sets them, all scopes pipelined together. A row image that is no longer in the
// table (a deleted row, the old side of an update) is put back in its place first (triggers and
// foreign keys off where the server may do that), so the table's own policies judge it.
import type postgres from 'postgres';
import { type Queryable, type RequestScope, runRolledBack, type Sql } from '../../core/db.js';

export interface RowCheck {
  /** The table, schema-qualified and quoted. */
  table: string;
  /** The primary key's values by column. */
  key: Record<string, unknown>;
}

const ROLLBACK = Symbol('rollback');
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function keyMatch(columns: string[]): string {
  const own = columns.map((c) => `t.${quote(c)}`).join(', ');
  const given = columns.map((c) => `r.${quote(c)}`).join(', ');
  return `(${own}) = (select ${given} from jsonb_populate_record(null::${'%T'}, $1::text::jsonb) r)`;
}

/** Statements per scope in the pipeline below; the third is the visibility query. */
const STEPS = 5;

/**
 * The statements checking every scope, pipelined together (one round trip once they are
 * prepared on the connection): each scope runs in a savepoint rolled back at once, so the role
 * and claims it set are undone, and an error of its own (no SELECT grant, its statement timeout)
 * costs it alone.
 */
function visibilitySteps(conn: Queryable, check: RowCheck, scopes: RequestScope[]) {
  const columns = Object.keys(check.key);
  const select = `select 1 from ${check.table} t where ${keyMatch(columns).replace('%T', check.table)} limit 1`;
  const key = JSON.stringify(check.key);
  return scopes.flatMap((scope) => [
    conn.unsafe('savepoint row_check'),
    conn.unsafe(
      `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('statement_timeout', $3, true)`,
      [scope.role, JSON.stringify(scope.claims), String(scope.statementTimeoutMs ?? 0)],
      { prepare: true },
    ),
    conn.unsafe(select, [key], { prepare: true }),
    conn.unsafe('rollback to savepoint row_check'),
    conn.unsafe('release savepoint row_check'),
  ]);
}

/** Which scopes saw the row, from the outcomes of visibilitySteps' statements. */
function seeing(settled: PromiseSettledResult<postgres.Row[]>[], scopes: RequestScope[]): boolean[] {
  return scopes.map((_, i) => {
    const answer = settled[i * STEPS + 2];
    return answer?.status === 'fulfilled' && answer.value.length > 0;
  });
}

async function scopesSeeing(tx: postgres.TransactionSql, check: RowCheck, scopes: RequestScope[]): Promise<boolean[]> {
  return seeing(await Promise.allSettled(visibilitySteps(tx, check, scopes)), scopes);
}

/**
 * The row as it is now, for every scope (an INSERT's check): BEGIN, the checks and ROLLBACK
 * written together on one connection, one round trip where a `sql.begin` takes three.
 */
async function scopesSeeingNow(sql: Sql, check: RowCheck, scopes: RequestScope[]): Promise<boolean[]> {
  return seeing(await runRolledBack(sql, (conn) => visibilitySteps(conn, check, scopes)), scopes);
}

/** Puts `image` in the row's place (in the transaction); false when it cannot be put there. */
async function replay(tx: postgres.TransactionSql, check: RowCheck, image: Record<string, unknown>): Promise<boolean> {
  await tx.savepoint((sp) => sp.unsafe(`set local session_replication_role = replica`)).catch(() => {});
  const columns = (
    await tx.unsafe<{ name: string }[]>(
      `select attname as name from pg_attribute
       where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = ''`,
      [check.table],
    )
  ).map((c) => quote(c.name));
  return tx
    .savepoint(async (sp) => {
      await sp.unsafe(
        `delete from ${check.table} t where ${keyMatch(Object.keys(check.key)).replace('%T', check.table)}`,
        [JSON.stringify(check.key)],
      );
      await sp.unsafe(
        `insert into ${check.table} (${columns.join(', ')}) overriding system value
         select ${columns.join(', ')} from jsonb_populate_record(null::${check.table}, $1::text::jsonb)`,
        [JSON.stringify(image)],
      );
    })
    .then(
      () => true,
      () => false,
    );
}

/**
 * For each scope: may it see the row as it is now (`current`), and as `image` (when given)?
 * Both in one rolled-back transaction.
 */
export async function rowVisibility(
  sql: Sql,
  check: RowCheck,
  scopes: RequestScope[],
  wanted: { current: boolean; image?: Record<string, unknown> },
): Promise<{ current: boolean[]; image: boolean[] }> {
  const none = scopes.map(() => false);
  if (!wanted.image) return { current: wanted.current ? await scopesSeeingNow(sql, check, scopes) : none, image: none };
  let result = { current: none, image: none };
  await sql
    .begin(async (tx) => {
      const current = wanted.current ? await scopesSeeing(tx, check, scopes) : result.current;
      const image =
        wanted.image && (await replay(tx, check, wanted.image)) ? await scopesSeeing(tx, check, scopes) : result.image;
      result = { current, image };
      throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
  return result;
}
