// A read planned: the root's filters, order and page (the row cap applied), then its select list
// with every embed resolved. Also the rows a function call answers, shaped by the same grammar.
import type { ParsedQuery } from '../grammar/ast.js';
import type { SchemaSnapshot, Table } from '../schema-cache.js';
import { checkEmbedded, ShapePlanner } from './select.js';
import type { ReadPlan } from './types.js';

/** The root resource of `query` on `table`; `list: false` plans no select list (a call's values). */
export function planRoot(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  options: { maxRows: number; list?: boolean },
): ReadPlan {
  const planner = new ShapePlanner(snapshot, query);
  const filters = planner.filters(table, []);
  const order = planner.order(table, []);
  const page = planner.page([], options.maxRows);
  const items = options.list === false ? [] : planner.list(table, query.select, []);
  return { kind: 'read', table, filters, order, page, items };
}

/** GET/HEAD on a table or view: PGRST108 first for filters, order or paging on an embed not selected. */
export function planRead(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery, maxRows: number): ReadPlan {
  checkEmbedded(query);
  return planRoot(snapshot, table, query, { maxRows });
}
