// Table changes, the admin side: start or stop change events for a table (one call installs the
// trigger and opens `table:<schema>.<table>` and `table:<schema>.<table>:<key>`), and list them.
import { AppError } from '../../core/errors.js';
import { asPgError } from '../../core/pg-errors.js';
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

export function createWatchedTablesService(deps: Pick<Deps, 'sql'>) {
  return {
    async watch(table: string): Promise<WatchedTable> {
      let channel: string;
      try {
        channel = await repo.watchTable(deps.sql, table);
      } catch (err) {
        const pg = asPgError(err);
        if (pg && ['42P01', '42809', '55000', '42602', '3F000'].includes(pg.code)) {
          throw new AppError('REALTIME_TABLE_NOT_WATCHABLE', pg.message, {
            cause: err,
            nextActions: 'Name an existing table with a primary key, such as "public.todos".',
          });
        }
        throw err;
      }
      const name = channel.slice(TABLE_CHANNEL_PREFIX.length);
      const row = (await repo.listWatchedTables(deps.sql)).find((r) => r.table === name);
      if (!row) throw new Error(`realtime.watch_table did not record ${name}`);
      return toWatched(row);
    },
    async unwatch(table: string): Promise<{ message: string }> {
      const unwatched = await repo.unwatchTable(deps.sql, table).catch((err) => {
        if (asPgError(err)?.code === '42602') return false; // not even a table name
        throw err;
      });
      if (!unwatched) {
        throw new AppError('REALTIME_TABLE_NOT_WATCHED', undefined, {
          nextActions: 'List the watched tables with GET /api/realtime/watched-tables.',
        });
      }
      return { message: 'Table no longer watched' };
    },
    async list(): Promise<WatchedTable[]> {
      return (await repo.listWatchedTables(deps.sql)).map(toWatched);
    },
  };
}

export type WatchedTablesService = ReturnType<typeof createWatchedTablesService>;
