// Inserts, updates and deletes planned: the columns a body writes (PGRST204 for a key that is no
// column), upsert keys, the filters an update or delete needs (refused without one), the body as
// JSON text, and the select list of the rows answered with return=representation.
import type { ParsedQuery } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { Column, SchemaSnapshot, Table } from '../schema-cache.js';
import { recordsJsonText } from './json.js';
import { columnOf } from './fields.js';
import { checkEmbedded, ShapePlanner } from './select.js';
import type { DeletePlan, InsertPlan, Returning, UpdatePlan } from './types.js';

export interface InsertOptions {
  columns: string[];
  representation: boolean;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  /** `Prefer: missing=default`: a column a row lacks takes its DEFAULT rather than NULL. */
  missingDefault?: boolean;
}

/** A key of the body (or of `columns=`) that is not a column: PGRST204, as PostgREST names it. */
function payloadColumn(table: Table, column: string): Column {
  const found = table.columns.get(column);
  if (!found) {
    throw recordsError(
      'VALIDATION_ERROR',
      'PGRST204',
      `Could not find the '${column}' column of '${table.name}' in the schema cache`,
    );
  }
  return found;
}

function requireFilter(query: ParsedQuery, verb: string) {
  if (query.filters.some((f) => f.path.length === 0)) return;
  // 21000 is what pg-safeupdate answers for the same refusal; PGRST106 means a bad schema.
  throw recordsError(
    'VALIDATION_ERROR',
    '21000',
    `${/^[aeiou]/.test(verb) ? 'An' : 'A'} ${verb} without any filter would change every row; it was refused.`,
    {
      nextActions: `Add a filter such as ?id=eq.<id> to say which rows to ${verb}.`,
    },
  );
}

/** The select list of the changed rows, when they go back (RETURNING needs the SELECT policies too). */
const returning = (planner: ShapePlanner, table: Table, query: ParsedQuery, representation: boolean): Returning =>
  representation ? planner.list(table, query.select, []) : undefined;

export function planInsert(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  rows: unknown[],
  options: InsertOptions,
): InsertPlan {
  checkEmbedded(query);
  const planner = new ShapePlanner(snapshot, query);
  const columns = options.columns.map((c) => payloadColumn(table, c));
  let conflict: InsertPlan['conflict'];
  if (options.resolution) {
    const keys = query.onConflict ?? table.primaryKey;
    if (keys.length === 0) {
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        'An upsert needs on_conflict=<columns> on a table without a primary key',
      );
    }
    for (const key of keys) columnOf(table, key);
    const updates = columns.filter((c) => !keys.includes(c.name));
    conflict = { keys, merge: options.resolution === 'merge-duplicates' && updates.length > 0 };
  }
  // Objects without keys (`{}`, `[{}, {}]`) insert one row of column defaults each: no body to bind.
  const body = columns.length === 0 ? '' : recordsJsonText(rows);
  return {
    kind: 'insert',
    table,
    columns,
    body,
    rowCount: rows.length,
    missingDefault: options.missingDefault ?? false,
    conflict,
    returning: returning(planner, table, query, options.representation),
  };
}

export function planUpdate(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  changes: Record<string, unknown>,
  representation: boolean,
): UpdatePlan {
  requireFilter(query, 'update');
  checkEmbedded(query);
  const planner = new ShapePlanner(snapshot, query);
  const columns = Object.keys(changes).map((c) => payloadColumn(table, c));
  if (columns.length === 0) throw recordsError('VALIDATION_ERROR', 'PGRST100', 'The update names no columns');
  const text = recordsJsonText(changes);
  const filters = planner.filters(table, []);
  return {
    kind: 'update',
    table,
    columns,
    changes: text,
    filters,
    returning: returning(planner, table, query, representation),
  };
}

export function planDelete(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  representation: boolean,
): DeletePlan {
  requireFilter(query, 'delete');
  checkEmbedded(query);
  const planner = new ShapePlanner(snapshot, query);
  const filters = planner.filters(table, []);
  return { kind: 'delete', table, filters, returning: returning(planner, table, query, representation) };
}
