// POST /api/database/advance/export: the public tables (all or some) as SQL or JSON — structure,
// up to rowLimit rows each, and on request functions, sequences and views — read in one
// read-only, repeatable-read transaction so the export is one consistent snapshot.
import type postgres from 'postgres';
import { withTx } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { listFunctions, listIndexes, listPolicies } from './database-objects.repo.js';
import { publicTables } from './database-metadata.repo.js';
import { quoteIdent, tableRef } from './table-ddl.js';
import type { ColumnInfo } from './table-admin.schemas.js';
import { tableNotFound } from './table-admin.service.js';
import { findTable, readColumns } from './table-schema.repo.js';

export interface ExportRequest {
  tables?: string[];
  format: 'sql' | 'json';
  includeData: boolean;
  includeFunctions: boolean;
  includeSequences: boolean;
  includeViews: boolean;
  rowLimit: number;
}

type Tx = postgres.TransactionSql;

interface TableExport {
  name: string;
  rlsEnabled: boolean;
  columns: ColumnInfo[];
  indexes: string[];
  policies: string[];
  /** JSON rows, or SQL literals (quote_nullable) per column for the SQL format. */
  rows: unknown[];
  truncated: boolean;
}

async function exportTable(tx: Tx, name: string, req: ExportRequest): Promise<TableExport> {
  const table = await findTable(tx, name);
  if (!table) throw tableNotFound(name);
  const columns = await readColumns(tx, table.oid);
  const indexes = (await listIndexes(tx, 'public', name)).filter((i) => !i.isPrimary).map((i) => i.indexDef);
  // Dropped first: a Plinth database gives every new table its admin policy on its own.
  const policies = (await listPolicies(tx, 'public', name)).map(
    (p) =>
      `drop policy if exists ${quoteIdent(p.policyName)} on ${tableRef(name)}; create policy ${quoteIdent(p.policyName)} on ${tableRef(name)} as ${p.permissive.toLowerCase()} for ${p.command.toLowerCase()} to ${p.roles.map(quoteIdent).join(', ')}` +
      `${p.using ? ` using (${p.using})` : ''}${p.withCheck ? ` with check (${p.withCheck})` : ''}`,
  );
  let rows: unknown[] = [];
  if (req.includeData) {
    const limit = req.rowLimit + 1;
    const list = columns.map((c) => `quote_nullable(${quoteIdent(c.columnName)}::text)`).join(', ');
    const query =
      req.format === 'json'
        ? `select coalesce(json_agg(x), '[]') as rows from (select * from ${tableRef(name)} limit ${limit}) x`
        : `select coalesce(json_agg(array[${list || "''"}]), '[]') as rows from (select * from ${tableRef(name)} limit ${limit}) x`;
    [{ rows }] = (await tx.unsafe(query)) as unknown as [{ rows: unknown[] }];
  }
  const truncated = rows.length > req.rowLimit;
  return {
    name,
    rlsEnabled: table.rlsEnabled,
    columns,
    indexes,
    policies,
    rows: rows.slice(0, req.rowLimit),
    truncated,
  };
}

function tableSql(t: TableExport): string[] {
  const defs = t.columns.map(
    (c) =>
      `  ${quoteIdent(c.columnName)} ${c.type}${c.isNullable ? '' : ' not null'}${c.defaultValue ? ` default ${c.defaultValue}` : ''}`,
  );
  const pk = t.columns.filter((c) => c.isPrimaryKey).map((c) => quoteIdent(c.columnName));
  if (pk.length > 0) defs.push(`  primary key (${pk.join(', ')})`);
  const out = [`create table ${tableRef(t.name)} (\n${defs.join(',\n')}\n);`];
  out.push(...t.indexes.map((i) => `${i};`));
  out.push(`alter table ${tableRef(t.name)} ${t.rlsEnabled ? 'enable' : 'disable'} row level security;`);
  out.push(...t.policies.map((p) => `${p};`));
  const names = t.columns.map((c) => quoteIdent(c.columnName)).join(', ');
  for (const row of t.rows as string[][])
    out.push(`insert into ${tableRef(t.name)} (${names}) values (${row.join(', ')});`);
  if (t.truncated) out.push(`-- ${t.name}: only the first ${t.rows.length} rows are exported (rowLimit).`);
  return out;
}

function foreignKeySql(t: TableExport): string[] {
  return t.columns.flatMap((c) =>
    c.foreignKey
      ? [
          `alter table ${tableRef(t.name)} add foreign key (${quoteIdent(c.columnName)}) references ${c.foreignKey.referenceTable.split('.').map(quoteIdent).join('.')} (${quoteIdent(c.foreignKey.referenceColumn)}) on delete ${c.foreignKey.onDelete.toLowerCase()} on update ${c.foreignKey.onUpdate.toLowerCase()};`,
        ]
      : [],
  );
}

async function extras(tx: Tx, req: ExportRequest) {
  return {
    functions: req.includeFunctions ? (await listFunctions(tx, 'public')).filter((f) => f.definition !== '') : [],
    sequences: req.includeSequences
      ? await tx<
          { name: string; lastValue: string | null }[]
        >`select sequencename::text as name, last_value::text as "lastValue" from pg_sequences where schemaname = 'public' order by 1`
      : [],
    views: req.includeViews
      ? await tx<
          { name: string; definition: string }[]
        >`select viewname::text as name, definition from pg_views where schemaname = 'public' order by 1`
      : [],
  };
}

export function createExportService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return async function exportDatabase(
    req: ExportRequest,
  ): Promise<{ format: 'sql' | 'json'; data: unknown; timestamp: string }> {
    const timestamp = deps.clock.now().toISOString();
    const { tables, more } = await withTx(deps.sql, async (tx) => {
      await tx`set transaction isolation level repeatable read, read only`;
      const names = req.tables ?? (await publicTables(tx));
      const tables: TableExport[] = [];
      for (const name of names) tables.push(await exportTable(tx, name, req));
      return { tables, more: await extras(tx, req) };
    });
    if (req.format === 'json') {
      const data = {
        tables: Object.fromEntries(
          tables.map(({ name, ...t }) => [name, req.includeData ? t : { ...t, rows: undefined }]),
        ),
        ...(req.includeFunctions ? { functions: more.functions } : {}),
        ...(req.includeSequences ? { sequences: more.sequences } : {}),
        ...(req.includeViews ? { views: more.views } : {}),
      };
      return { format: 'json', data, timestamp };
    }
    const lines = [`-- Plinth export of ${tables.length} table(s), ${timestamp}`];
    lines.push(
      ...more.sequences.map(
        (s) =>
          `create sequence if not exists public.${quoteIdent(s.name)};${s.lastValue ? ` select setval('public.${quoteIdent(s.name).replaceAll("'", "''")}', ${s.lastValue});` : ''}`,
      ),
    );
    for (const t of tables) lines.push('', ...tableSql(t));
    lines.push('', ...tables.flatMap(foreignKeySql));
    lines.push(...more.functions.map((f) => `${f.definition};`));
    lines.push(...more.views.map((v) => `create or replace view public.${quoteIdent(v.name)} as ${v.definition}`));
    return { format: 'sql', data: `${lines.join('\n')}\n`, timestamp };
  };
}

export type ExportDatabase = ReturnType<typeof createExportService>;
