// The one SQL statement of each planned records request. Reads and writes that return rows answer
// a JSON array built by PostgreSQL (`body`), its row count (`page_rows`) and, when asked, the
// total. Rendering cannot fail: the plan resolved and checked every name and value.
import type { Column, Table } from '../schema-cache.js';
import type { DeletePlan, InsertPlan, PlannedItem, ReadPlan, UpdatePlan, WritePlan } from '../plan/types.js';
import { tableName } from './joins.js';
import { ident, Params } from './params.js';
import { SelectRenderer } from './select-list.js';

export interface Statement {
  text: string;
  params: unknown[];
  /** Whether the statement answers body/page_rows/total (else only a row count). */
  returnsBody: boolean;
  /** An upsert merging duplicates: the answer also carries `page_rows` and `inserted` (rows new, not merged). */
  reportsInserted?: boolean;
}

/** A renderer whose first alias, t0, is the root. */
function rootRenderer(): SelectRenderer {
  const renderer = new SelectRenderer(new Params());
  renderer.nextAlias();
  return renderer;
}

/** Wraps a row source (`from …`) into the answer: JSON body, rows on the page, total. */
export function answer(
  renderer: SelectRenderer,
  items: PlannedItem[],
  source: string,
  options: { where: string[]; orderAndPage: string; total?: string; extra?: string },
) {
  const { columns, inner, joins } = renderer.list(items, 't0');
  const where = [...options.where, ...inner];
  const whereSql = where.length ? ` where ${where.join(' and ')}` : '';
  const total = options.total === undefined ? 'null::bigint' : options.total.replace('{where}', () => whereSql);
  return `select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total${options.extra ?? ''}
    from (select ${columns.join(', ')} from ${source} t0${joins}${whereSql}${options.orderAndPage}) _r`;
}

export function renderRead(plan: ReadPlan, options: { count: boolean }): Statement {
  const renderer = rootRenderer();
  const where = renderer.conditions(plan.filters, 't0');
  const orderAndPage = `${renderer.orderBy(plan.order, 't0')}${renderer.limitOffset(plan.page)}`;
  const source = tableName(plan.table);
  const text = answer(renderer, plan.items, source, {
    where,
    orderAndPage,
    total: options.count ? `select count(*) from ${source} t0{where}` : undefined,
  });
  return { text, params: renderer.params.values, returnsBody: true };
}

/**
 * The rows a read would return before paging, for EXPLAIN to estimate (count=planned): its
 * filters, !inner embeds and select list (so every bound parameter has a use), no order or limit.
 */
export function renderPlannedCount(plan: ReadPlan): Statement {
  const renderer = rootRenderer();
  const where = renderer.conditions(plan.filters, 't0');
  const { columns, inner, joins } = renderer.list(plan.items, 't0');
  const all = [...where, ...inner];
  const text = `select ${columns.join(', ')} from ${tableName(plan.table)} t0${joins}${all.length ? ` where ${all.join(' and ')}` : ''}`;
  return { text, params: renderer.params.values, returnsBody: false };
}

/** `returning t0.*` only when rows go back: RETURNING needs the SELECT policies too. */
function mutation(renderer: SelectRenderer, returning: PlannedItem[] | undefined, sql: string): Statement {
  if (!returning) return { text: sql, params: renderer.params.values, returnsBody: false };
  const text = `with _changed as (${sql} returning t0.*) ${answer(renderer, returning, '_changed', { where: [], orderAndPage: '' })}`;
  return { text, params: renderer.params.values, returnsBody: true };
}

/**
 * An upsert merging duplicates, which also counts the rows it inserted (PostgREST answers 200
 * rather than 201 when it inserted none). `xmax = 0` marks a row version this statement created
 * rather than updated. ON CONFLICT DO UPDATE checks the SELECT policies already, so RETURNING
 * here changes nothing row-level security decides.
 */
function mergingUpsert(renderer: SelectRenderer, returning: PlannedItem[] | undefined, sql: string): Statement {
  const raw = `with _raw as (${sql} returning t0 as _row, (t0.xmax = 0) as _inserted)`;
  const inserted = ', (select count(*) from _raw where _inserted)::int as inserted';
  const text = returning
    ? `${raw}, _changed as (select (_row).* from _raw) ${answer(renderer, returning, '_changed', { where: [], orderAndPage: '', extra: inserted })}`
    : `${raw} select count(*)::int as page_rows, count(*) filter (where _inserted)::int as inserted from _raw`;
  return { text, params: renderer.params.values, returnsBody: returning !== undefined, reportsInserted: true };
}

/**
 * The rows of the body as a row source of `columns`. A key a row lacks is NULL there; with
 * `missing=default` it is the column's DEFAULT expression instead, evaluated for that row.
 */
function bodyRows(table: Table, params: Params, body: string, columns: Column[], missingDefault: boolean): string {
  // The body goes as JSON text (bound as text, cast here): postgres.js never walks the value.
  const bound = `${params.add(body)}::text`;
  const cols = columns.map((c) => ident(c.name));
  if (!missingDefault || columns.every((c) => c.defaultSql === undefined)) {
    return `select ${cols.join(', ')} from json_populate_recordset(null::${tableName(table)}, ${bound}::json)`;
  }
  const values = columns.map((c, i) =>
    // The default is catalog text (the table owner wrote it), never request text.
    c.defaultSql === undefined
      ? `_p.${cols[i]}`
      : `case when _e.r ? ${params.add(c.name)}::text then _p.${cols[i]} else (${c.defaultSql}) end`,
  );
  return `select ${values.join(', ')} from jsonb_array_elements(${bound}::jsonb) _e(r) cross join lateral jsonb_populate_record(null::${tableName(table)}, _e.r) _p`;
}

function renderInsert(plan: InsertPlan): Statement {
  const renderer = rootRenderer();
  const params = renderer.params;
  const cols = plan.columns.map((c) => ident(c.name));
  let conflict = '';
  if (plan.conflict) {
    const keys = plan.conflict.keys.map(ident);
    const updates = cols.filter((c) => !keys.includes(c)).map((c) => `${c} = excluded.${c}`);
    conflict = plan.conflict.merge
      ? ` on conflict (${keys.join(', ')}) do update set ${updates.join(', ')}`
      : ` on conflict (${keys.join(', ')}) do nothing`;
  }
  // Objects without keys (`{}`, `[{}, {}]`): one row of column defaults each, as PostgREST inserts.
  const source =
    cols.length === 0
      ? `select from generate_series(1, ${params.add(plan.rowCount)}::int)`
      : `(${cols.join(', ')}) ${bodyRows(plan.table, params, plan.body, plan.columns, plan.missingDefault)}`;
  const sql = `insert into ${tableName(plan.table)} as t0 ${source}${conflict}`;
  if (plan.conflict?.merge) return mergingUpsert(renderer, plan.returning, sql);
  return mutation(renderer, plan.returning, sql);
}

/** The rows an update or delete changes: its filters on t0. */
function renderFiltered(plan: UpdatePlan | DeletePlan): Statement {
  const renderer = rootRenderer();
  const table = tableName(plan.table);
  let sql: string;
  if (plan.kind === 'update') {
    const source = `json_populate_record(null::${table}, ${renderer.params.add(plan.changes)}::text::json)`;
    const sets = plan.columns.map((c) => `${ident(c.name)} = _j.${ident(c.name)}`).join(', ');
    sql = `update ${table} as t0 set ${sets} from ${source} _j where ${renderer.conditions(plan.filters, 't0').join(' and ')}`;
  } else {
    sql = `delete from ${table} as t0 where ${renderer.conditions(plan.filters, 't0').join(' and ')}`;
  }
  return mutation(renderer, plan.returning, sql);
}

export function renderWrite(plan: WritePlan): Statement {
  return plan.kind === 'insert' ? renderInsert(plan) : renderFiltered(plan);
}
