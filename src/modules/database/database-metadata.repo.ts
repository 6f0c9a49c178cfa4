// What the admin sees of the database: the base tables of the public schema with exact row
// counts, and the database's size.
import type { Queryable } from '../../core/db.js';

export async function publicTables(db: Queryable): Promise<string[]> {
  const rows = await db<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
    order by c.relname`;
  return rows.map((r) => r.name);
}

/** Exact COUNT(*) of every public table, in one statement (query_to_xml runs each count). */
export async function tableCounts(db: Queryable): Promise<{ name: string; recordCount: number }[]> {
  const rows = await db<{ name: string; count: string }[]>`
    select c.relname as name,
           (xpath('/row/n/text()', query_to_xml(format('select count(*) as n from public.%I', c.relname), false, true, '')))[1]::text as count
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
    order by c.relname`;
  return rows.map((r) => ({ name: r.name, recordCount: Number(r.count) }));
}

export async function databaseSize(db: Queryable): Promise<string> {
  const [row] = await db<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
  return row!.size;
}
