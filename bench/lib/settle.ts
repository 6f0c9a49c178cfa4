// Before a measured run, the database pays the vacuum debt of whatever ran before it. PostgreSQL's
// CPU is counted per run, and autovacuum starts up to a minute after the writes that call for it:
// without this, the side measured next (Plinth, which runs first in each scenario) paid for the
// previous scenario's writes. Measured: records list-20 at 59% of its user view in a full run
// against 86-98% alone, with PostgreSQL's CPU per request 0.74 ms against 0.43.
import postgres from 'postgres';

/** A table is vacuumed first once this many rows are dead or changed since its last analyze. */
const DEBT_ROWS = 1_000;
/** Autovacuum workers already running are waited for, at most this long. */
const WAIT_MS = 30_000;
const POLL_MS = 200;

export async function settleDatabase(databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string }[]>`
      select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables
      where n_dead_tup > ${DEBT_ROWS} or n_mod_since_analyze > ${DEBT_ROWS}`;
    for (const { name } of tables) await sql.unsafe(`vacuum (analyze) ${name}`);
    for (const until = Date.now() + WAIT_MS; Date.now() < until; ) {
      const [busy] = await sql<{ workers: number }[]>`
        select count(*)::int as workers from pg_stat_activity where backend_type = 'autovacuum worker'`;
      if (busy?.workers === 0) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
