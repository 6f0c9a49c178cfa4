// Table changes, the admin side: start or stop change events for a table (one call installs the
// trigger and opens `table:<schema>.<table>` and `table:<schema>.<table>:<key>`), and list them.
import { AppError } from '../../core/errors.js';
import { asPgError } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './watched-tables.repo.js';
import type { WatchedTable } from './watched-tables.schemas.js';

const channelsOf = (table: string) => ({ tableChannel: `table:${table}`, rowChannel: `table:${table}:<key>` });

const toWatched = (row: repo.WatchedTableRow): WatchedTable => ({
  table: row.table,
  keyColumns: row.keyColumns,
  ...channelsOf(row.table),
  createdAt: row.createdAt.toISOString(),
});

export function createWatchedTablesService(deps: Pick<Deps, 'sql'>) {
  return {
    async watch(table: string): Promise<WatchedTable> {
      try {
        await repo.watchTable(deps.sql, table);
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
      const rows = await repo.listWatchedTables(deps.sql);
      const [schema, name] = table.includes('.') ? table.split('.', 2) : ['public', table];
      const row = rows.find((r) => r.table === `${schema}.${name}`) ?? rows[rows.length - 1]!;
      return toWatched(row);
    },
    async unwatch(table: string): Promise<{ message: string }> {
      if (!(await repo.unwatchTable(deps.sql, table))) {
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
