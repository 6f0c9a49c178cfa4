// The one SQL statement of each records request. Reads and writes that return rows answer a
// JSON array built by PostgreSQL (`body`), its row count (`page_rows`) and, when asked, the total.
import type { ParsedQuery, SelectItem } from '../grammar/ast.js';
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
  /** An upsert merging duplicates: the answer also carries `page_rows` and `inserted` (rows new, not merged). */
  reportsInserted?: boolean;
}

const tableName = (table: Table) => `${ident(table.schema)}.${ident(table.name)}`;

/** Wraps a row source (`from …`) into the answer: JSON body, rows on the page, total. */
function answer(
  builder: SelectBuilder,
  table: Table,
  source: string,
  query: ParsedQuery,
  options: { where: string[]; orderAndPage: string; total?: string; extra?: string },
) {
  const { columns, inner, joins } = builder.list(table, 't0', query.select, []);
  const where = [...options.where, ...inner];
  const whereSql = where.length ? ` where ${where.join(' and ')}` : '';
  const total = options.total === undefined ? 'null::bigint' : options.total.replace('{where}', () => whereSql);
  return `select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total${options.extra ?? ''}
    from (select ${columns.join(', ')} from ${source} t0${joins}${whereSql}${options.orderAndPage}) _r`;
}

/** The embedding paths `select` names (`a`, `a.b`…), by alias or relation as the filters name them. */
function embedPaths(items: SelectItem[], prefix: string[] = [], into = new Set<string>()): Set<string> {
  for (const item of items) {
    if (item.kind !== 'embed') continue;
    const path = [...prefix, item.alias ?? item.relation];
    into.add(JSON.stringify(path));
    embedPaths(item.select, path, into);
  }
  return into;
}

/** A filter, order or limit on an embed the select does not have is an error (PGRST108), as in PostgREST. */
function checkEmbedded(query: ParsedQuery): void {
  const known = embedPaths(query.select);
  for (const { path } of [...query.filters, ...query.orderings, ...query.paging]) {
    if (path.length === 0 || known.has(JSON.stringify(path))) continue;
    const resource = path.join('.');
    throw recordsError('VALIDATION_ERROR', 'PGRST108', `'${resource}' is not an embedded resource in this request`, {
      hint: `Verify that '${resource}' is included in the 'select' query parameter.`,
    });
  }
}

export function readStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  options: { maxRows: number; count: boolean },
): Statement {
  checkEmbedded(query);
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

/**
 * The rows a read would return before paging, for EXPLAIN to estimate (count=planned): its
 * filters, !inner embeds and select list (so every bound parameter has a use), no order or limit.
 */
export function plannedCountStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery): Statement {
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const where = builder.conditions(table, 't0', []);
  const { columns, inner, joins } = builder.list(table, 't0', query.select, []);
  const all = [...where, ...inner];
  const text = `select ${columns.join(', ')} from ${tableName(table)} t0${joins}${all.length ? ` where ${all.join(' and ')}` : ''}`;
  return { text, params: params.values, returnsBody: false };
}

function requireFilter(query: ParsedQuery, verb: string) {
  if (query.filters.some((f) => f.path.length === 0)) return;
  // 21000 is what pg-safeupdate answers for the same refusal; PGRST106 means a bad schema.
  throw recordsError(
    'VALIDATION_ERROR',
    '21000',
    `A ${verb} without any filter would change every row; it was refused.`,
    {
      nextActions: `Add a filter such as ?id=eq.<id> to say which rows to ${verb}.`,
    },
  );
}

/** `returning t0.*` only when rows go back: RETURNING needs the SELECT policies too. */
function mutation(
  builder: SelectBuilder,
  table: Table,
  query: ParsedQuery,
  sql: string,
  representation: boolean,
): Statement {
  if (!representation) return { text: sql, params: builder.params.values, returnsBody: false };
  const text = `with _changed as (${sql} returning t0.*) ${answer(builder, table, '_changed', query, { where: [], orderAndPage: '' })}`;
  return { text, params: builder.params.values, returnsBody: true };
}

/**
 * An upsert merging duplicates, which also counts the rows it inserted (PostgREST answers 200
 * rather than 201 when it inserted none). `xmax = 0` marks a row version this statement created
 * rather than updated. ON CONFLICT DO UPDATE checks the SELECT policies already, so RETURNING
 * here changes nothing row-level security decides.
 */
function mergingUpsert(
  builder: SelectBuilder,
  table: Table,
  query: ParsedQuery,
  sql: string,
  representation: boolean,
): Statement {
  const raw = `with _raw as (${sql} returning t0 as _row, (t0.xmax = 0) as _inserted)`;
  const inserted = ', (select count(*) from _raw where _inserted)::int as inserted';
  const text = representation
    ? `${raw}, _changed as (select (_row).* from _raw) ${answer(builder, table, '_changed', query, { where: [], orderAndPage: '', extra: inserted })}`
    : `${raw} select count(*)::int as page_rows, count(*) filter (where _inserted)::int as inserted from _raw`;
  return { text, params: builder.params.values, returnsBody: representation, reportsInserted: true };
}

/** A key of the body (or of `columns=`) that is not a column: PGRST204, as PostgREST names it. */
function payloadColumn(table: Table, column: string): string {
  if (!table.columns.has(column)) {
    throw recordsError(
      'VALIDATION_ERROR',
      'PGRST204',
      `Could not find the '${column}' column of '${table.name}' in the schema cache`,
    );
  }
  return quotedColumn(table, column);
}

export interface InsertOptions {
  columns: string[];
  representation: boolean;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  /** `Prefer: missing=default`: a column a row lacks takes its DEFAULT rather than NULL. */
  missingDefault?: boolean;
}

/**
 * The rows of the body as a row source of `cols`. A key a row lacks is NULL there; with
 * `missing=default` it is the column's DEFAULT expression instead, evaluated for that row.
 */
function bodyRows(table: Table, params: Params, rows: unknown[], columns: string[], missingDefault: boolean): string {
  // The body goes as JSON text (bound as text, cast here): postgres.js never walks the value.
  const body = params.addJson(rows);
  const cols = columns.map((c) => quotedColumn(table, c));
  const withDefault = missingDefault ? columns.filter((c) => table.columns.get(c)!.defaultSql !== undefined) : [];
  if (withDefault.length === 0) {
    return `select ${cols.join(', ')} from json_populate_recordset(null::${tableName(table)}, ${body}::json)`;
  }
  const values = columns.map((c, i) => {
    const defaultSql = withDefault.includes(c) ? table.columns.get(c)!.defaultSql : undefined;
    // The default is catalog text (the table owner wrote it), never request text.
    return defaultSql === undefined
      ? `_p.${cols[i]}`
      : `case when _e.r ? ${params.add(c)}::text then _p.${cols[i]} else (${defaultSql}) end`;
  });
  return `select ${values.join(', ')} from jsonb_array_elements(${body}::jsonb) _e(r) cross join lateral jsonb_populate_record(null::${tableName(table)}, _e.r) _p`;
}

export function insertStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  rows: unknown[],
  options: InsertOptions,
): Statement {
  checkEmbedded(query);
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const cols = options.columns.map((c) => payloadColumn(table, c));
  let conflict = '';
  let merging = false;
  if (options.resolution) {
    const keys = query.onConflict ?? table.primaryKey;
    if (keys.length === 0) {
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        'An upsert needs on_conflict=<columns> on a table without a primary key',
      );
    }
    const keySql = keys.map((k) => quotedColumn(table, k));
    const updates = cols.filter((c) => !keySql.includes(c)).map((c) => `${c} = excluded.${c}`);
    merging = options.resolution === 'merge-duplicates' && updates.length > 0;
    conflict = merging
      ? ` on conflict (${keySql.join(', ')}) do update set ${updates.join(', ')}`
      : ` on conflict (${keySql.join(', ')}) do nothing`;
  }
  // Objects without keys (`{}`, `[{}, {}]`): one row of column defaults each, as PostgREST inserts.
  const source =
    cols.length === 0
      ? `select from generate_series(1, ${params.add(rows.length)}::int)`
      : `(${cols.join(', ')}) ${bodyRows(table, params, rows, options.columns, options.missingDefault ?? false)}`;
  const sql = `insert into ${tableName(table)} as t0 ${source}${conflict}`;
  if (merging) return mergingUpsert(builder, table, query, sql, options.representation);
  return mutation(builder, table, query, sql, options.representation);
}

export function updateStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  changes: Record<string, unknown>,
  representation: boolean,
): Statement {
  requireFilter(query, 'update');
  checkEmbedded(query);
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const cols = Object.keys(changes).map((c) => payloadColumn(table, c));
  if (cols.length === 0) throw recordsError('VALIDATION_ERROR', 'PGRST100', 'The update names no columns');
  const source = `json_populate_record(null::${tableName(table)}, ${params.addJson(changes)}::json)`;
  const where = builder.conditions(table, 't0', []);
  const sql = `update ${tableName(table)} as t0 set ${cols.map((c) => `${c} = _j.${c}`).join(', ')} from ${source} _j where ${where.join(' and ')}`;
  return mutation(builder, table, query, sql, representation);
}

export function deleteStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  representation: boolean,
): Statement {
  requireFilter(query, 'delete');
  checkEmbedded(query);
  const params = new Params();
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias();
  const where = builder.conditions(table, 't0', []);
  const sql = `delete from ${tableName(table)} as t0 where ${where.join(' and ')}`;
  return mutation(builder, table, query, sql, representation);
}
