// Realtime's references to user tables by oid (the watched tables, the row changes' messages),
// pointed again at the tables of the same name after the tables were created anew (a restore
// gives every table a new oid). A reference whose table no longer exists is dropped.
import type { Queryable } from '../../core/db.js';

export async function rekeyTableReferences(db: Queryable): Promise<void> {
  // Delete and insert in one statement: an update could collide with a stale oid still in use.
  await db`
    with old as (delete from realtime.watched_tables returning *)
    insert into realtime.watched_tables (table_oid, table_name, key_columns, created_at)
    select c.oid, old.table_name, old.key_columns, old.created_at
      from old join pg_catalog.pg_class c on c.relkind in ('r', 'p')
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace and n.nspname || '.' || c.relname = old.table_name`;
  await db`
    update realtime.messages m
       set row_table = (select c.oid from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                         where n.nspname = m.payload ->> 'schema' and c.relname = m.payload ->> 'table'
                           and c.relkind in ('r', 'p'))
     where m.row_table is not null`;
}
