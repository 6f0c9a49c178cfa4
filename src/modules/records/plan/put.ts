// PUT /records/{table}?pk=eq.v: a single-row upsert, as PostgREST checks it — the filters are
// exactly `eq` on every primary-key column, no paging, and the body's key values match them.
import type { ParsedQuery } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { Table } from '../schema-cache.js';

/** The one row a PUT writes (its body), once the request is checked; else PostgREST's errors. */
export function putRow(table: Table, query: ParsedQuery, body: unknown): Record<string, unknown> {
  if (query.paging.some((p) => p.path.length === 0)) {
    throw recordsError('VALIDATION_ERROR', 'PGRST114', 'limit/offset querystring parameters are not allowed for PUT');
  }
  const keyFilters = new Map<string, string>();
  const onlyKeys = query.filters.every(({ path, expression: e }) => {
    if (path.length > 0) return true;
    const keyEq =
      e.kind === 'condition' && e.operator === 'eq' && !e.negated && !e.quantifier && e.field.json.length === 0;
    if (!keyEq || !table.primaryKey.includes(e.field.column) || keyFilters.has(e.field.column)) return false;
    keyFilters.set(e.field.column, e.value as string);
    return true;
  });
  if (!onlyKeys || table.primaryKey.length === 0 || keyFilters.size !== table.primaryKey.length) {
    throw recordsError(
      'METHOD_NOT_ALLOWED',
      'PGRST105',
      "Filters must include all and only primary key columns with 'eq' operators",
    );
  }
  const rows = Array.isArray(body) ? body : [body];
  const row = rows[0] as Record<string, unknown> | undefined;
  if (rows.length !== 1 || typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw recordsError('VALIDATION_ERROR', 'PGRST102', 'The body of a PUT must be one JSON object');
  }
  const matches = table.primaryKey.every(
    (k) => Object.hasOwn(row, k) && row[k] !== null && String(row[k]) === keyFilters.get(k),
  );
  if (!matches)
    throw recordsError('VALIDATION_ERROR', 'PGRST115', 'Payload values do not match URL in primary key column(s)');
  return row;
}
