// Which function a call names (`/api/database/rpc/{fn}`), planned as PostgREST does: which query
// parameters of a GET are arguments and which the records grammar, and which overload of the
// function the argument names pick (404 PGRST202 for none, 300 PGRST203 for several).
import { AppError } from '../../../core/errors.js';
import { OPERATORS } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import { qualified, type Routine, type SchemaCache, type SchemaSnapshot } from '../schema-cache.js';

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

export const isJsonType = (type: string) => type === 'json' || type === 'jsonb';
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

/** The overload called, as findRoutine picks it; a function created a moment ago may need a fresher snapshot. */
export async function resolveRoutine(
  cache: SchemaCache,
  schema: string,
  name: string,
  names: Set<string>,
  jsonBody: boolean,
): Promise<Routine> {
  try {
    return findRoutine(cache.current(), schema, name, names, jsonBody);
  } catch (err) {
    if (!(err instanceof AppError && err.fields?.code === 'PGRST202')) throw err;
    // Look again even when this refresh found nothing new: a reload may have landed meanwhile.
    await cache.refreshIfChanged();
    return findRoutine(cache.current(), schema, name, names, jsonBody);
  }
}
