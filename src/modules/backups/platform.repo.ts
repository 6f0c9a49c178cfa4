// The platform's own migration history (a restore needs the same one) and the table locks a
// restore takes.
import type { Queryable } from '../../core/db.js';

export async function platformMigrationNames(db: Queryable): Promise<string[]> {
  const rows = await db<{ name: string }[]>`select name from system.migrations order by name`;
  return rows.map((r) => r.name);
}

/** Drops every statement's effects on `tables`' user triggers while rows load (owner-level, no superuser). */
export async function setUserTriggers(db: Queryable, tables: string[], enabled: boolean): Promise<void> {
  for (const t of tables) await db.unsafe(`alter table ${t} ${enabled ? 'enable' : 'disable'} trigger user`);
}

export async function truncateTables(db: Queryable, tables: string[]): Promise<void> {
  if (tables.length) await db.unsafe(`truncate ${tables.join(', ')}`);
}
