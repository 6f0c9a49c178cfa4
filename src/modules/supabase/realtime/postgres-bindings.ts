// postgres_changes bindings of a Supabase join: the client's {event, schema, table, filter}
// checked and given ids (echoed in the join reply, in order), the filter grammar realtime-js
// sends (`column=op.value`, op one of eq, neq, lt, lte, gt, gte, in), a row tested against it,
// and the `postgres_changes` payload Supabase sends (columns, record, old_record, errors).

export type ChangeEvent = 'INSERT' | 'UPDATE' | 'DELETE' | '*';

export interface Filter {
  column: string;
  op: 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';
  values: string[];
}

export interface Binding {
  id: number;
  event: ChangeEvent;
  schema: string;
  table: string;
  /** The client's filter text, echoed back as given. */
  filterText?: string;
  filter: Filter | null;
}

const EVENTS = new Set(['INSERT', 'UPDATE', 'DELETE', '*']);
const OPS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in']);
const MAX_BINDINGS = 100;
const MAX_IN_VALUES = 100;

/** The channel Plinth's watched-table trigger publishes a table's changes on. */
export const tableChannelOf = (schema: string, table: string) => `table:${schema}.${table}`;

export function parseFilter(text: string): Filter | null {
  const eq = text.indexOf('=');
  if (eq <= 0) return null;
  const column = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const dot = rest.indexOf('.');
  if (dot <= 0) return null;
  const op = rest.slice(0, dot);
  const value = rest.slice(dot + 1);
  if (!OPS.has(op)) return null;
  if (op !== 'in') return { column, op: op as Filter['op'], values: [value] };
  if (!value.startsWith('(') || !value.endsWith(')')) return null;
  const values = value
    .slice(1, -1)
    .split(',')
    .map((v) => v.trim().replace(/^"(.*)"$/, '$1'));
  if (values.length === 0 || values.length > MAX_IN_VALUES) return null;
  return { column, op: 'in', values };
}

/** The bindings of a join's config, numbered from `firstId`; a string says why they are refused. */
export function parseBindings(raw: unknown, firstId: number): Binding[] | string {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return 'postgres_changes must be a list';
  if (raw.length > MAX_BINDINGS) return `At most ${MAX_BINDINGS} postgres_changes bindings per channel`;
  const bindings: Binding[] = [];
  for (const [i, item] of raw.entries()) {
    const b = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const event = typeof b.event === 'string' ? b.event.toUpperCase() : '';
    if (!EVENTS.has(event)) return `Invalid postgres_changes event: ${String(b.event)}`;
    const schema = typeof b.schema === 'string' && b.schema !== '' ? b.schema : 'public';
    if (typeof b.table !== 'string' || b.table === '' || b.table === '*') {
      return 'postgres_changes bindings must name a table (whole-schema subscriptions are not supported)';
    }
    let filter: Filter | null = null;
    if (b.filter !== undefined && b.filter !== null && b.filter !== '') {
      if (typeof b.filter !== 'string') return 'Invalid postgres_changes filter';
      filter = parseFilter(b.filter);
      if (!filter) return `Invalid postgres_changes filter: ${b.filter}`;
    }
    bindings.push({
      id: firstId + i,
      event: event as ChangeEvent,
      schema,
      table: b.table,
      ...(filter ? { filterText: b.filter as string } : {}),
      filter,
    });
  }
  return bindings;
}

/** The reply's echo of a binding (realtime-js matches event, schema, table and filter, in order). */
export const echoBinding = (b: Binding) => ({
  id: b.id,
  event: b.event,
  schema: b.schema,
  table: b.table,
  ...(b.filterText !== undefined ? { filter: b.filterText } : {}),
});

function compare(actual: unknown, wanted: string): number | null {
  if (actual === null || actual === undefined) return null;
  if (typeof actual === 'number') {
    const n = Number(wanted);
    return Number.isNaN(n) ? null : actual - n;
  }
  if (typeof actual === 'boolean') return String(actual) === wanted ? 0 : 1;
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return text === wanted ? 0 : text < wanted ? -1 : 1;
}

/** Does the row pass the filter (a missing or null column passes only `neq`)? */
export function rowMatches(filter: Filter | null, row: Record<string, unknown> | null | undefined): boolean {
  if (!filter) return true;
  if (!row || !(filter.column in row)) return false;
  const actual = row[filter.column];
  if (filter.op === 'in') return filter.values.some((v) => compare(actual, v) === 0);
  const c = compare(actual, filter.values[0] as string);
  if (c === null) return filter.op === 'neq';
  switch (filter.op) {
    case 'eq':
      return c === 0;
    case 'neq':
      return c !== 0;
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
    case 'gt':
      return c > 0;
    default:
      return c >= 0;
  }
}

export interface ShownChange {
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table: string;
  new: Record<string, unknown> | null;
  old: Record<string, unknown> | null;
}

/** The ids of `bindings` the change reaches (event and filter), in binding order. */
export function matchingIds(bindings: Binding[], change: ShownChange): number[] {
  const row = change.type === 'DELETE' ? change.old : change.new;
  return bindings
    .filter((b) => b.schema === change.schema && b.table === change.table)
    .filter((b) => b.event === '*' || b.event === change.type)
    .filter((b) => rowMatches(b.filter, row))
    .map((b) => b.id);
}

/** Supabase's `postgres_changes` payload; `columns` lists only the columns the subscriber may read. */
export function changePayload(
  ids: number[],
  change: ShownChange,
  columns: { name: string; type: string }[],
  commitTimestamp: string,
) {
  const shown = change.new ?? change.old ?? {};
  const data: Record<string, unknown> = {
    schema: change.schema,
    table: change.table,
    commit_timestamp: commitTimestamp,
    type: change.type,
    columns: columns.filter((c) => c.name in shown),
    errors: null,
  };
  if (change.type !== 'DELETE') data.record = change.new ?? {};
  if (change.type !== 'INSERT') data.old_record = change.old ?? {};
  return { ids, data };
}
