// SQL of the migration history (system.custom_migrations); versions compare as numbers.
import type { Queryable } from '../../core/db.js';
import type { AppliedMigration } from './migrations.schemas.js';

const HISTORY_LOCK = 'system.custom_migrations';

interface Row {
  version: string;
  name: string;
  statements: string[];
  createdAt: Date;
}

const toApplied = (r: Row): AppliedMigration => ({ ...r, createdAt: r.createdAt.toISOString() });

export async function listApplied(db: Queryable): Promise<AppliedMigration[]> {
  const rows = await db<Row[]>`
    select version, name, statements, created_at as "createdAt"
    from system.custom_migrations order by version::numeric desc`;
  return rows.map(toApplied);
}

/** Serialises every writer of the history until the transaction ends. */
export async function lockHistory(db: Queryable): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext(${HISTORY_LOCK}))`;
}

export async function latestVersion(db: Queryable): Promise<string | undefined> {
  const [row] = await db<{ version: string }[]>`
    select version from system.custom_migrations order by version::numeric desc limit 1`;
  return row?.version;
}

/** Forgets the whole history (after the schema was dropped, `plinth db reset`); answers how many. */
export async function forgetApplied(db: Queryable): Promise<number> {
  return (await db`delete from system.custom_migrations`).count;
}

/** Runs after the developer's SQL, which may have changed session settings such as DateStyle:
 * nothing is read back. */
export async function insertApplied(
  db: Queryable,
  m: Omit<AppliedMigration, 'createdAt'>,
  at: Date,
): Promise<AppliedMigration> {
  await db`
    insert into system.custom_migrations (version, name, statements, created_at)
    values (${m.version}, ${m.name}, ${m.statements}, ${at})`;
  return { ...m, createdAt: at.toISOString() };
}
