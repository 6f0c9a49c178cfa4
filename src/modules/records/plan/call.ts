// A function call planned: the arguments the request gives, each as the text PostgreSQL reads for
// its parameter's type, and the result's shape; rows or values of a set shaped by the records
// grammar over the table the function returns (embedding follows its foreign keys) or over its
// own result columns.
import type { ParsedQuery } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import { qualified, type Column, type Routine, type SchemaSnapshot, type Table } from '../schema-cache.js';
import { recordsJsonText } from './json.js';
import { planRoot } from './reads.js';
import { isJsonType } from './routines.js';
import type { CallPlan, PlannedArgument } from './types.js';

/** The arguments of a call: by name, or the whole JSON body for a single unnamed json parameter. */
export type RpcArguments = { kind: 'named'; values: Map<string, unknown> } | { kind: 'single'; value: unknown };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The named arguments of a GET: the last value of each, all values of a variadic parameter. */
export function getArguments(routine: Routine, args: Map<string, string[]>): RpcArguments {
  const values = new Map<string, unknown>();
  for (const arg of routine.args) {
    const given = args.get(arg.name);
    if (given) values.set(arg.name, arg.variadic ? given : given.at(-1));
  }
  return { kind: 'named', values };
}

/** A POST body: named arguments, or the whole body for a single unnamed json/jsonb parameter. */
export function postArguments(routine: Routine, body: unknown): RpcArguments {
  const [only] = routine.args;
  if (routine.args.length === 1 && only!.name === '') return { kind: 'single', value: body ?? {} };
  if (body !== undefined && !isPlainObject(body)) {
    throw recordsError(
      'VALIDATION_ERROR',
      'PGRST102',
      'The body of a function call must be a JSON object of named arguments',
      {
        details: `${routine.schema}.${routine.name} takes named parameters`,
      },
    );
  }
  return { kind: 'named', values: new Map(Object.entries(body ?? {})) };
}

/** The names a POST body gives (its keys, when it is an object). */
export const bodyNames = (body: unknown) => new Set(isPlainObject(body) ? Object.keys(body) : []);

/** A JSON value as the text PostgreSQL reads for `type` (arrays as array literals). */
export function argumentText(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (isJsonType(type)) return recordsJsonText(value);
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return recordsJsonText(value);
  return String(value);
}

function arrayLiteral(items: unknown[]): string {
  const element = (item: unknown): string => {
    if (Array.isArray(item)) return arrayLiteral(item);
    if (item === null || item === undefined) return 'NULL';
    const text = typeof item === 'object' ? recordsJsonText(item) : String(item);
    return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  };
  return `{${items.map(element).join(',')}}`;
}

/** The arguments given, in the routine's order; a variadic parameter given one value takes it as a list. */
function plannedArguments(routine: Routine, args: RpcArguments): PlannedArgument[] {
  const given =
    args.kind === 'single'
      ? [{ arg: routine.args[0]!, value: args.value }]
      : routine.args.filter((a) => args.values.has(a.name)).map((arg) => ({ arg, value: args.values.get(arg.name) }));
  return given.map(({ arg, value }) => {
    const bound = arg.variadic && !Array.isArray(value) && value !== null ? [value] : value;
    return { arg, text: argumentText(bound, arg.type) };
  });
}

/**
 * What the records grammar filters and selects on: the table whose rows the function returns
 * (so embedding follows its foreign keys), or the function's own result columns. A result
 * that is no table gets an empty schema, so no foreign key of a same-named table applies.
 */
function resultTable(snapshot: SchemaSnapshot, routine: Routine): Table {
  const returned =
    routine.returnTable && snapshot.tables.get(qualified(routine.returnTable.schema, routine.returnTable.name));
  if (returned) return returned;
  const columns: Column[] = routine.returnsRows
    ? routine.columns
    : [{ name: routine.name, type: routine.returnType, nullable: true, hasDefault: false }];
  return {
    schema: '',
    name: routine.name,
    kind: 'view',
    columns: new Map(columns.map((c) => [c.name, c])),
    primaryKey: [],
    uniqueKeys: [],
  };
}

/** The call of `routine` with `args`, its result shaped by `query` (rows capped at `maxRows`). */
export function planCall(
  snapshot: SchemaSnapshot,
  routine: Routine,
  args: RpcArguments,
  query: ParsedQuery,
  maxRows: number,
): CallPlan {
  const planned = plannedArguments(routine, args);
  if (routine.returnsVoid) return { routine, args: planned, shape: 'void' };
  if (!routine.returnsSet && !routine.returnsRows) return { routine, args: planned, shape: 'scalar' };
  // Values of `setof integer` are named after the function, so filters and order can use that name.
  const scalars = !routine.returnsRows;
  const node = planRoot(snapshot, resultTable(snapshot, routine), query, { maxRows, list: !scalars });
  return { routine, args: planned, shape: routine.returnsSet ? 'set' : 'single', result: { node, scalars } };
}
