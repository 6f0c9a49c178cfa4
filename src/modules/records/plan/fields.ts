// Names a request gives, checked: columns of a table (42703 naming the ones it has), casts of a
// select item, and output names (PostgreSQL cannot take a NUL in a statement's text).
import type { FieldRef } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { Column, Table } from '../schema-cache.js';

const CAST = /^[a-z_][a-z0-9_]*( [a-z_][a-z0-9_]*)*(\[\])?$/i;

/** A column of `table`, or a 400 naming the columns it has. */
export function columnOf(table: Table, column: string): Column {
  const found = table.columns.get(column);
  if (!found) {
    throw recordsError('VALIDATION_ERROR', '42703', `column ${table.name}.${column} does not exist`, {
      hint: `The columns of ${table.name} are: ${[...table.columns.keys()].join(', ')}.`,
    });
  }
  return found;
}

/** A field whose column exists; its JSON path keys stay values. */
export function checkedField(table: Table, field: FieldRef): FieldRef {
  columnOf(table, field.column);
  return field;
}

/** The type a field's operands are read as: the column's, or text/jsonb after a JSON path. */
export function operandType(table: Table, field: FieldRef): string {
  const last = field.json.at(-1);
  if (last) return last.arrow === '->>' ? 'text' : 'jsonb';
  return columnOf(table, field.column).type;
}

/** A type name for CAST(… AS type): words and an optional `[]`, nothing that could go on as SQL. */
export function checkedCast(cast: string): string {
  if (!CAST.test(cast)) throw recordsError('VALIDATION_ERROR', 'PGRST100', `Invalid cast "${cast}"`);
  return cast;
}

/** A name the request chose for an output column (an alias, a JSON key). */
export function checkedName(name: string): string {
  if (name.includes('\u0000'))
    throw recordsError('VALIDATION_ERROR', 'PGRST100', 'A name may not contain a NUL character');
  return name;
}
