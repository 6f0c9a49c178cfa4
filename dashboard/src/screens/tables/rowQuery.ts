// The records query of the grid: filters (PostgREST operators) and the order, as a query string.
import type { ColumnInfo } from './tableApi';

export const OPERATORS = [
  { value: 'eq', label: 'equals' },
  { value: 'neq', label: 'not equal' },
  { value: 'lt', label: 'less than' },
  { value: 'gt', label: 'greater than' },
  { value: 'like', label: 'like (* wildcard)' },
  { value: 'ilike', label: 'ilike (case-insensitive)' },
  { value: 'is.null', label: 'is null' },
  { value: 'not.is.null', label: 'is not null' },
] as const;

export interface Filter {
  column: string;
  operator: (typeof OPERATORS)[number]['value'];
  value: string;
}

export interface Sort {
  column: string;
  descending: boolean;
}

export const takesValue = (operator: Filter['operator']) => !operator.endsWith('is.null');

/** Filters a link brings (`?column=op.value`, e.g. from a foreign key): known columns and operators only. */
export function filtersOfUrl(search: string, columns: ColumnInfo[]): Filter[] {
  const names = new Set(columns.map((c) => c.columnName));
  const filters: Filter[] = [];
  for (const [column, spec] of new URLSearchParams(search)) {
    if (!names.has(column)) continue;
    const operator = OPERATORS.find((o) => spec === o.value || spec.startsWith(`${o.value}.`));
    if (!operator) continue;
    filters.push({
      column,
      operator: operator.value,
      value: takesValue(operator.value) ? spec.slice(operator.value.length + 1) : '',
    });
  }
  return filters;
}

/** `title=ilike.*tea*`; like patterns may use % or * as the wildcard. */
function filterParam(filter: Filter): [string, string] {
  if (!takesValue(filter.operator)) return [filter.column, filter.operator];
  const value = filter.operator.endsWith('like') ? filter.value.replaceAll('%', '*') : filter.value;
  return [filter.column, `${filter.operator}.${value}`];
}

/** The query string; without a chosen sort the primary key orders rows so pages never overlap. */
export function rowQuery(filters: Filter[], sort: Sort | null, columns: ColumnInfo[]): string {
  const params = new URLSearchParams(filters.map(filterParam));
  const keys = columns.filter((c) => c.isPrimaryKey).map((c) => `${c.columnName}.asc`);
  const order = sort ? [`${sort.column}.${sort.descending ? 'desc' : 'asc'}`, ...keys] : keys;
  if (order.length) params.set('order', order.join(','));
  return params.toString();
}

/** The filter that picks out one row by its primary key. */
export function keyFilter(row: Record<string, unknown>, columns: ColumnInfo[]): string | null {
  const keys = columns.filter((c) => c.isPrimaryKey);
  if (keys.length === 0) return null;
  return new URLSearchParams(keys.map((c) => [c.columnName, `eq.${String(row[c.columnName])}`])).toString();
}
