// `plinth db query "<sql>"` (admin SQL; a table or --json) and `plinth db seed <file>` (a SQL file
// run as one multi-statement query).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable } from '../output.js';

export interface RawSqlResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
  fields?: { name: string }[];
}

export const runSql = (api: ApiClient, query: string) =>
  api.call<RawSqlResult>('POST', '/api/database/advance/rawsql', { json: { query } });

export function registerDbQuery(db: Command, ctx: CommandContext): void {
  db.command('query')
    .description('run admin SQL and print the rows (a table, or JSON with --json)')
    .argument('<sql>', 'the SQL text (several statements when they take no parameters)')
    .action(async (sql: string) => {
      const result = await runSql(await ctx.api(), sql);
      const columns = result.fields?.map((f) => f.name) ?? Object.keys(result.rows[0] ?? {});
      emit(ctx, result, () => [
        ...(columns.length > 0 ? objectTable(result.rows, columns) : []),
        `(${result.rows.length > 0 || columns.length > 0 ? `${result.rows.length} row${result.rows.length === 1 ? '' : 's'}` : `${result.rowCount ?? 0} affected`})`,
      ]);
    });

  db.command('seed')
    .description('run a SQL file of inserts (e.g. seed.sql) against the database')
    .argument('<file>', 'the SQL file')
    .action(async (file: string) => {
      const filePath = path.resolve(ctx.cwd, file);
      const sql = await readFile(filePath, 'utf8').catch(() => {
        throw new CliError(`Cannot read ${filePath}.`);
      });
      if (sql.trim() === '') throw new CliError(`${file} is empty: write the seed's SQL in it first.`);
      const result = await runSql(await ctx.api(), sql).catch((err: CliError) => {
        throw new CliError(`Seeding from ${file} failed: ${err.message}`, err.extra);
      });
      emit(ctx, { file, rowCount: result.rowCount }, () => [`Seeded from ${file}.`]);
    });
}
