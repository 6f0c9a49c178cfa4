// Planning of function calls (`/api/database/rpc/{fn}`), pure: which query parameters are
// arguments, which overload of the function the argument names pick (PostgREST's rules and
// errors), and the one SQL statement that calls it with bound, typed arguments and shapes its
// result with the records grammar (select, filters, order, paging, count).
import { OPERATORS, type ParsedQuery } from './grammar/ast.js';
import { recordsError } from './records-errors.js';
import {
  qualified,
  type Column,
  type Routine,
  type RoutineArg,
  type SchemaSnapshot,
  type Table,
} from './schema-cache.js';
import { ident, Params, recordsJsonText } from './sql/params.js';
import { SelectBuilder } from './sql/select-list.js';

/** How the statement's answer becomes the response body. */
export type RpcResultShape =
  /** `returns void`: 204 without a body. */
  | 'void'
  /** One value (`returns integer`): the JSON value itself. */
  | 'scalar'
  /** One row (`returns notes`, OUT parameters): a JSON object (or null). */
  | 'single'
  /** Rows (`returns setof notes`, `returns table(…)`) or values (`returns setof integer`): a JSON array. */
  | 'set';

export interface RpcStatement {
  text: string;
  params: unknown[];
  shape: RpcResultShape;
}

/** The arguments of a call: by name, or the whole JSON body for a single unnamed json parameter. */
export type RpcArguments = { kind: 'named'; values: Map<string, unknown> } | { kind: 'single'; value: unknown };

// Reserved names of the records grammar; `order`, `limit`, … also after an embedding path.
const RESERVED = new Set(['select', 'columns', 'on_conflict']);
const RESERVED_LAST = new Set(['order', 'limit', 'offset', 'and', 'or']);
const FILTER_OPERATORS = new Set<string>(OPERATORS);

/** `eq.1`, `not.in.(…)`, `eq(any).{…}`, `fts(english).word`: a filter's value, not an argument (PostgREST's test). */
function looksLikeFilter(value: string): boolean {
  const [first = '', ...rest] = value.split('.');
  if (first === 'not') return rest.length > 0;
  return FILTER_OPERATORS.has(first.replace(/\(.*$/, ''));
}

/**
 * Sorts a GET call's query string as PostgREST does: reserved parameters, keys with an embedding
 * path and values with an operator go to the records grammar; every other `key=value` is an
 * argument. Repeated arguments keep every value (a variadic parameter takes them all).
 */
export function splitCallQuery(query: [string, string][]): {
  args: Map<string, string[]>;
  grammar: [string, string][];
} {
  const args = new Map<string, string[]>();
  const grammar: [string, string][] = [];
  for (const [key, value] of query) {
    const last = key.slice(key.lastIndexOf('.') + 1);
    if (
      key === 'schema' ||
      RESERVED.has(key) ||
      RESERVED_LAST.has(last) ||
      key.includes('.') ||
      looksLikeFilter(value)
    ) {
      grammar.push([key, value]);
    } else {
      args.set(key, [...(args.get(key) ?? []), value]);
    }
  }
  return { args, grammar };
}

const isJsonType = (type: string) => type === 'json' || type === 'jsonb';
const signature = (r: Routine) => `${r.schema}.${r.name}(${r.args.map((a) => `${a.name} => ${a.type}`).join(', ')})`;

/** PostgREST's matching: every argument names a parameter; every parameter without a default has one. */
function acceptsNames(routine: Routine, names: Set<string>): boolean {
  const params = new Set(routine.args.map((a) => a.name));
  return [...names].every((n) => params.has(n)) && routine.args.every((a) => a.hasDefault || names.has(a.name));
}

/**
 * The overload of `schema.name` that the argument names call, or PostgREST's errors: 404
 * PGRST202 when none matches (with the parameters it does take as a hint), 300 PGRST203 when
 * several do. `jsonBody`: a POSTed JSON body, which may also go whole to one unnamed json/jsonb
 * parameter.
 */
export function findRoutine(
  snapshot: SchemaSnapshot,
  schema: string,
  name: string,
  names: Set<string>,
  jsonBody: boolean,
): Routine {
  const overloads = snapshot.routines.get(qualified(schema, name)) ?? [];
  const byName = overloads.filter((r) => acceptsNames(r, names));
  const single = jsonBody
    ? overloads.filter((r) => r.args.length === 1 && r.args[0]!.name === '' && isJsonType(r.args[0]!.type))
    : [];
  const found = byName.length > 0 ? byName : single;
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw recordsError(
      'MULTIPLE_CHOICES',
      'PGRST203',
      `Could not choose the best candidate function between: ${found.map(signature).join(', ')}`,
      {
        hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
      },
    );
  }
  const sorted = [...names].sort();
  const listed = sorted.join(', ');
  const withParams =
    sorted.length === 0 ? ' without parameters' : ` with parameter${sorted.length > 1 ? 's' : ''} ${listed}`;
  const nearest = overloads[0];
  throw recordsError(
    'NOT_FOUND',
    'PGRST202',
    `Could not find the function ${schema}.${name}${sorted.length === 0 ? ' without parameters' : `(${listed})`} in the schema cache`,
    {
      details: `Searched for the function ${schema}.${name}${withParams}${jsonBody ? ' or with a single unnamed json/jsonb parameter' : ''}, but no matches were found in the schema cache.`,
      hint: nearest
        ? `Perhaps you meant to call the function ${schema}.${name}(${nearest.args
            .map((a) => a.name)
            .sort()
            .join(', ')})`
        : null,
    },
  );
}

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

/**
 * `name => $n::text::type`: every argument is bound as text and cast by PostgreSQL to the
 * parameter's type (text converts to any type), so no client-side serializer reinterprets it.
 */
function argumentSql(arg: RoutineArg, value: unknown, params: Params): string {
  const bound = arg.variadic && !Array.isArray(value) && value !== null ? [value] : value;
  const cast = `${params.add(argumentText(bound, arg.type))}::text::${arg.type}`;
  return arg.name === '' ? cast : `${arg.variadic ? 'variadic ' : ''}${ident(arg.name)} => ${cast}`;
}

function callSql(routine: Routine, args: RpcArguments, params: Params): string {
  const list =
    args.kind === 'single'
      ? [argumentSql(routine.args[0]!, args.value, params)]
      : routine.args.filter((a) => args.values.has(a.name)).map((a) => argumentSql(a, args.values.get(a.name), params));
  return `${ident(routine.schema)}.${ident(routine.name)}(${list.join(', ')})`;
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

export interface CallOptions {
  maxRows: number;
  count: boolean;
}

/** The statement calling `routine` with `args`, its result shaped by `query`. */
export function callStatement(
  snapshot: SchemaSnapshot,
  routine: Routine,
  args: RpcArguments,
  query: ParsedQuery,
  options: CallOptions,
): RpcStatement {
  const params = new Params();
  const call = callSql(routine, args, params);
  const none = 'null::int as page_rows, null::bigint as total';
  if (routine.returnsVoid)
    return { text: `select null::text as body, ${none} from ${call}`, params: params.values, shape: 'void' };
  if (!routine.returnsSet && !routine.returnsRows) {
    return {
      text: `select to_json(_f._v)::text as body, ${none} from ${call} _f(_v)`,
      params: params.values,
      shape: 'scalar',
    };
  }

  const table = resultTable(snapshot, routine);
  const builder = new SelectBuilder(snapshot, query, params);
  builder.nextAlias(); // t0 is the root
  const where = builder.conditions(table, 't0', []);
  const orderAndPage = `${builder.orderBy(table, 't0', [])}${builder.limitOffset([], options.maxRows)}`;
  // Values of `setof integer` are named after the function, so filters and order can use that name.
  const scalars = !routine.returnsRows;
  const { columns, inner, joins } = scalars
    ? { columns: [`t0.${ident(routine.name)} as _v`], inner: [], joins: '' }
    : builder.list(table, 't0', query.select, []);
  const conditions = [...where, ...inner];
  const whereSql = conditions.length ? ` where ${conditions.join(' and ')}` : '';
  const total = options.count ? `select count(*) from _source t0${whereSql}` : 'null::bigint';
  const aggregate = scalars ? `json_agg(_r._v)` : 'json_agg(_r)';
  // Materialized: the function runs once, however often the answer reads its rows.
  const source = scalars ? `select _f.* from ${call} _f(${ident(routine.name)})` : `select _f.* from ${call} _f`;
  const text = `with _source as materialized (${source})
    select coalesce(${aggregate}, '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total
    from (select ${columns.join(', ')} from _source t0${joins}${whereSql}${orderAndPage}) _r`;
  return { text, params: params.values, shape: routine.returnsSet ? 'set' : 'single' };
}
