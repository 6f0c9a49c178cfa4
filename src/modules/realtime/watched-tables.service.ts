// Table changes, the admin side: start or stop change events for a table (one call installs the
// trigger and opens `table:<schema>.<table>` and `table:<schema>.<table>:<key>`), and list them.
import { AppError } from '../../core/errors.js';
import { type PgOverrides, withPgOverrides } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './watched-tables.repo.js';
import type { WatchedTable } from './watched-tables.schemas.js';

/** realtime.watch_table answers the table's channel: this prefix and `<schema>.<table>`. */
const TABLE_CHANNEL_PREFIX = 'table:';
const channelsOf = (table: string) => ({
  tableChannel: `${TABLE_CHANNEL_PREFIX}${table}`,
  rowChannel: `${TABLE_CHANNEL_PREFIX}${table}:<key>`,
});

const toWatched = (row: repo.WatchedTableRow): WatchedTable => ({
  table: row.table,
  keyColumns: row.keyColumns,
  ...channelsOf(row.table),
  createdAt: row.createdAt.toISOString(),
});

const notWatchable = (pg: { message: string }, cause: unknown) =>
  new AppError('REALTIME_TABLE_NOT_WATCHABLE', pg.message, {
    cause,
    nextActions: 'Name an existing table with a primary key, such as "public.todos".',
  });
const notWatched = () =>
  new AppError('REALTIME_TABLE_NOT_WATCHED', undefined, {
    nextActions: 'List the watched tables with GET /api/realtime/watched-tables.',
  });

/** What realtime.watch_table's refusals mean here: no such table, not a table, no primary key, a bad name. */
const WATCH_OVERRIDES: PgOverrides = {
  '42P01': notWatchable, // undefined_table
  '42809': notWatchable, // wrong_object_type (a view)
  '55000': notWatchable, // object_not_in_prerequisite_state (no primary key)
  '42602': notWatchable, // invalid_name
  '3F000': notWatchable, // invalid_schema_name
};
/** Not even a table name: so certainly not watched. */
const UNWATCH_OVERRIDES: PgOverrides = { '42602': notWatched };

export function createWatchedTablesService(deps: Pick<Deps, 'sql'>) {
  return {
    async watch(table: string): Promise<WatchedTable> {
      const channel = await withPgOverrides(WATCH_OVERRIDES, () => repo.watchTable(deps.sql, table));
      const name = channel.slice(TABLE_CHANNEL_PREFIX.length);
      const row = (await repo.listWatchedTables(deps.sql)).find((r) => r.table === name);
      if (!row) throw new Error(`realtime.watch_table did not record ${name}`);
      return toWatched(row);
    },
    async unwatch(table: string): Promise<{ message: string }> {
      const unwatched = await withPgOverrides(UNWATCH_OVERRIDES, () => repo.unwatchTable(deps.sql, table));
      if (!unwatched) throw notWatched();
      return { message: 'Table no longer watched' };
    },
    async list(): Promise<WatchedTable[]> {
      return (await repo.listWatchedTables(deps.sql)).map(toWatched);
    },
  };
}

export type WatchedTablesService = ReturnType<typeof createWatchedTablesService>;
