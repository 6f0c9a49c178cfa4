// The one SQL statement of each records request. Reads and writes that return rows answer a
// JSON array built by PostgreSQL (`body`), its row count (`page_rows`) and, when asked, the total.
import type { ParsedQuery } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { SchemaSnapshot, Table } from '../schema-cache.js';
import { quotedColumn } from './conditions.js';
import { ident, Params } from './params.js';
import { SelectBuilder } from './select-list.js';

export interface Statement {
  text: string;
  params: unknown[];
  /** Whether the statement answers body/page_rows/total (else only a row count). */
  returnsBody: boolean;
}

const tableName = (table: Table) => `${ident(table.schema)}.${ident(table.name)}`;

/** Wraps a row source (`from …`) into the answer: JSON body, rows on the page, total. */
function answer(builder: SelectBuilder, table: Table, source: string, query: ParsedQuery, options: { where: string[]; orderAndPage: string; total?: string }) {
  const { columns, inner } = builder.list(table, 't0', query.select, []);
  const where = [...options.where, ...inner];
  const whereSql = where.length ? ` where ${where.join(' and ')}` : '';
  const total = options.total === undefined ? 'null::bigint' : options.total.replace('{where}', whereSql);
  return `select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total
    from (select ${columns.join(', ')} from ${source} t0${whereSql}${options.orderAndPage}) _r`;
}

export function readStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, options: { maxRows: number; count: boolean }): Statement {
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias(); // t0 is the root
  const where = builder.conditions(table, 't0', []);
  const orderAndPage = `${builder.orderBy(table, 't0', [])}${builder.limitOffset([], options.maxRows)}`;
  const text = answer(builder, table, tableName(table), query, {
    where,
    orderAndPage,
    total: options.count ? `select count(*) from ${tableName(table)} t0{where}` : undefined,
  });
  return { text, params: params.values, returnsBody: true };
}

function requireFilter(query: ParsedQuery, verb: string) {
  if (query.filters.some((f) => f.path.length === 0)) return;
  throw recordsError('VALIDATION_ERROR', 'PGRST106', `A ${verb} without any filter would change every row; it was refused.`, {
    nextActions: `Add a filter such as ?id=eq.<id> to say which rows to ${verb}.`,
  });
}

/** `returning t0.*` only when rows go back: RETURNING needs the SELECT policies too. */
function mutation(builder: SelectBuilder, table: Table, query: ParsedQuery, sql: string, representation: boolean): Statement {
  if (!representation) return { text: sql, params: builder.params.values, returnsBody: false };
  const text = `with _changed as (${sql} returning t0.*) ${answer(builder, table, '_changed', query, { where: [], orderAndPage: '' })}`;
  return { text, params: builder.params.values, returnsBody: true };
}

export interface InsertOptions {
  columns: string[];
  representation: boolean;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
}

export function insertStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, rows: unknown[], options: InsertOptions): Statement {
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const cols = options.columns.map((c) => quotedColumn(table, c));
  let conflict = '';
  if (options.resolution) {
    const keys = query.onConflict ?? table.primaryKey;
    if (keys.length === 0) {
      throw recordsError('VALIDATION_ERROR', 'PGRST100', 'An upsert needs on_conflict=<columns> on a table without a primary key');
    }
    const keySql = keys.map((k) => quotedColumn(table, k));
    const updates = cols.filter((c) => !keySql.includes(c)).map((c) => `${c} = excluded.${c}`);
    conflict =
      options.resolution === 'ignore-duplicates' || updates.length === 0
        ? ` on conflict (${keySql.join(', ')}) do nothing`
        : ` on conflict (${keySql.join(', ')}) do update set ${updates.join(', ')}`;
  }
  // postgres.js serialises a value bound to a json parameter itself.
  const body = params.add(rows);
  const sql = `insert into ${tableName(table)} as t0 (${cols.join(', ')}) select ${cols.join(', ')} from json_populate_recordset(null::${tableName(table)}, ${body}::json)${conflict}`;
  return mutation(builder, table, query, sql, options.representation);
}

export function updateStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, changes: Record<string, unknown>, representation: boolean): Statement {
  requireFilter(query, 'update');
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const cols = Object.keys(changes).map((c) => quotedColumn(table, c));
  if (cols.length === 0) throw recordsError('VALIDATION_ERROR', 'PGRST100', 'The update names no columns');
  const source = `json_populate_record(null::${tableName(table)}, ${params.add(changes)}::json)`;
  const where = builder.conditions(table, 't0', []);
  const sql = `update ${tableName(table)} as t0 set ${cols.map((c) => `${c} = _j.${c}`).join(', ')} from ${source} _j where ${where.join(' and ')}`;
  return mutation(builder, table, query, sql, representation);
}

export function deleteStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, representation: boolean): Statement {
  requireFilter(query, 'delete');
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const where = builder.conditions(table, 't0', []);
  const sql = `delete from ${tableName(table)} as t0 where ${where.join(' and ')}`;
  return mutation(builder, table, query, sql, representation);
}
