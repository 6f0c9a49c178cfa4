// SQL of watched tables: realtime.watch_table / unwatch_table (which install and drop the change
// trigger and the two channel patterns) and the list of watched tables.
import type { Queryable } from '../../core/db.js';

export interface WatchedTableRow {
  table: string;
  keyColumns: string[];
  createdAt: Date;
}

export async function watchTable(db: Queryable, table: string): Promise<string> {
  const [row] = await db<{ channel: string }[]>`select realtime.watch_table(${table}::regclass) as channel`;
  return row!.channel;
}

export async function unwatchTable(db: Queryable, table: string): Promise<boolean> {
  const [row] = await db<{ watched: boolean }[]>`
    select case when to_regclass(${table}) is null then false
      else realtime.unwatch_table(to_regclass(${table})) end as watched`;
  return row?.watched ?? false;
}

export function listWatchedTables(db: Queryable): Promise<WatchedTableRow[]> {
  return db<WatchedTableRow[]>`
    select table_name as "table", key_columns as "keyColumns", created_at as "createdAt"
    from realtime.watched_tables order by created_at, table_name`;
}
