// Function calls of the records API, as PostgREST's `/rpc/{fn}`: parse (arguments and the
// records grammar) → plan (the overload the argument names pick, checked against the schema
// cache) → one SQL statement → run it in the caller's RLS-scoped transaction, read-only for GET
// and HEAD and for functions that are not volatile → answer as PostgREST would.
import { AppError } from '../../core/errors.js';
import { withRequestScope, type RequestScope } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../http/principal.js';
import type { ParsedQuery, Preferences } from './grammar/ast.js';
import { CONTENT_TYPES, negotiate, toCsv, type Media } from './media.js';
import { maxAffectedError, notOneRow, RolledBack } from './records-execute.js';
import { fromPostgresError, recordsError } from './records-errors.js';
import { asPgError } from '../../core/pg-errors.js';
import { scopeOf } from '../../http/request-scope.js';
import {
  applyRange,
  contentRange,
  parse,
  preferenceApplied,
  preferencesOf,
  type PgrstHeaders,
  type PgrstResponse,
} from './pgrst-request.js';
import type { TimezoneCheck } from './timezone.js';
import { callStatement, findRoutine, splitCallQuery, type RpcArguments, type RpcResultShape } from './rpc-plan.js';
import type { Routine, SchemaCache } from './schema-cache.js';

export type RpcMethod = 'GET' | 'HEAD' | 'POST';

export interface RpcRequest {
  method: RpcMethod;
  functionName: string;
  query: [string, string][];
  headers: PgrstHeaders;
  /** The parsed JSON body of a POST; undefined without one. */
  body: unknown;
  principal: Principal;
}

export type RpcResponse = PgrstResponse;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The named arguments of a GET: the last value of each, all values of a variadic parameter. */
function getArguments(routine: Routine, args: Map<string, string[]>): RpcArguments {
  const values = new Map<string, unknown>();
  for (const arg of routine.args) {
    const given = args.get(arg.name);
    if (given) values.set(arg.name, arg.variadic ? given : given.at(-1));
  }
  return { kind: 'named', values };
}

/** A POST body: named arguments, or the whole body for a single unnamed json/jsonb parameter. */
function postArguments(routine: Routine, body: unknown): RpcArguments {
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

/** The one row a call statement answers. */
interface CallAnswer {
  body: string | null;
  page_rows: number | null;
  total: string | null;
}

/** PostgREST's response to a call: 204 for void, the value for a scalar, an object or an array. */
function respond(
  req: RpcRequest,
  shape: RpcResultShape,
  query: ParsedQuery,
  prefs: Preferences,
  media: Media,
  result: CallAnswer | undefined,
): RpcResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const applied = preferenceApplied(prefs, {});
  if (applied) headers['preference-applied'] = applied;
  const withBody = (body: string) => (req.method === 'HEAD' ? undefined : body);
  if (shape === 'void') return { status: 204, headers: { 'content-range': '0-0/*' } };
  if (shape === 'scalar')
    return { status: 200, headers: { ...headers, 'content-range': '0-0/*' }, body: withBody(result?.body ?? 'null') };

  const pageRows = result?.page_rows ?? 0;
  const total = result?.total === null || result?.total === undefined ? null : Number(result.total);
  const offset = query.paging.find((p) => p.path.length === 0)?.offset ?? 0;
  if (total !== null && offset > total) {
    throw recordsError('RANGE_NOT_SATISFIABLE', 'PGRST103', 'Requested range not satisfiable', {
      details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
    });
  }
  let body = result?.body ?? '[]';
  if (shape === 'single') {
    body = JSON.stringify((JSON.parse(body) as unknown[])[0] ?? null);
  } else if (media === 'object') {
    if (pageRows !== 1) throw notOneRow(pageRows);
    body = JSON.stringify((JSON.parse(body) as unknown[])[0]);
    headers['content-type'] = CONTENT_TYPES.object;
  } else if (media === 'csv') {
    body = toCsv(body, req.functionName);
    headers['content-type'] = CONTENT_TYPES.csv;
  }
  headers['content-range'] = contentRange(offset, pageRows, total);
  const partial = total !== null && (offset > 0 || pageRows < total);
  return { status: partial ? 206 : 200, headers, body: withBody(body) };
}

export type RpcService = ReturnType<typeof createRpcService>;

export function createRpcService(
  deps: Pick<Deps, 'sql' | 'config'>,
  cache: SchemaCache,
  options: { maxRows: number; schemas: string[]; timezones: TimezoneCheck },
) {
  const { timezones } = options;
  /** The overload called; a function created a moment ago may need a fresher snapshot. */
  async function routineOf(schema: string, name: string, names: Set<string>, jsonBody: boolean): Promise<Routine> {
    try {
      return findRoutine(cache.current(), schema, name, names, jsonBody);
    } catch (err) {
      if (!(err instanceof AppError && err.fields?.code === 'PGRST202')) throw err;
      // Look again even when this refresh found nothing new: a reload may have landed meanwhile.
      await cache.refreshIfChanged();
      return findRoutine(cache.current(), schema, name, names, jsonBody);
    }
  }

  /** The call in the caller's scope; read-only when it may not write; max-affected and tx=rollback checked before COMMIT. */
  async function execute(
    req: RpcRequest,
    scope: RequestScope,
    text: string,
    params: unknown[],
    run: { readOnly: boolean; maxAffected?: number; rollback: boolean },
  ) {
    try {
      return await withRequestScope(deps.sql, scope, async (tx) => {
        // Sent first and pipelined with the call: a transaction may turn read-only at any point.
        const readOnlyMode = run.readOnly ? tx.unsafe('set transaction read only') : undefined;
        const [, rows] = await Promise.all([readOnlyMode, tx.unsafe(text, params as never[], { prepare: true })]);
        const returned = (rows[0] as CallAnswer | undefined)?.page_rows ?? 0;
        if (run.maxAffected !== undefined && returned > run.maxAffected) throw maxAffectedError(returned);
        if (run.rollback) throw new RolledBack(rows);
        return rows;
      });
    } catch (err) {
      if (err instanceof RolledBack) return err.rows;
      const pg = asPgError(err);
      if (pg?.code === '25006') {
        // PostgREST's answer to a write in a read-only call (GET, or a function that is not volatile).
        throw new AppError('METHOD_NOT_ALLOWED', pg.message, {
          cause: err,
          nextActions: 'Call functions that write with POST, and declare them VOLATILE (the default).',
          fields: { code: '25006', details: null, hint: null },
        });
      }
      throw fromPostgresError(err, req.principal.kind === 'anon') ?? err;
    }
  }

  return {
    async call(req: RpcRequest): Promise<RpcResponse> {
      const reading = req.method !== 'POST';
      const schema =
        req.query.find(([key]) => key === 'schema')?.[1] ??
        (reading ? req.headers.acceptProfile : req.headers.contentProfile) ??
        options.schemas[0]!;
      if (!options.schemas.includes(schema)) {
        throw recordsError(
          'NOT_ACCEPTABLE',
          'PGRST106',
          `The schema must be one of the following: ${options.schemas.join(', ')}`,
        );
      }

      const split = reading ? splitCallQuery(req.query) : { args: new Map<string, string[]>(), grammar: req.query };
      const names = reading
        ? new Set(split.args.keys())
        : new Set(isPlainObject(req.body) ? Object.keys(req.body) : []);
      const media = negotiate(req.headers.accept);
      const { scope, prefs } = await timezones.apply(
        scopeOf(req.principal, deps.config.statementTimeouts),
        preferencesOf(req.headers.prefer),
      );
      const query = applyRange(parse(split.grammar), reading ? req.headers.range : undefined);
      const routine = await routineOf(schema, req.functionName, names, !reading);
      const args = reading ? getArguments(routine, split.args) : postArguments(routine, req.body);
      const statement = callStatement(cache.current(), routine, args, query, {
        maxRows: options.maxRows,
        count: prefs.count !== undefined,
      });

      const limit = prefs.handling === 'strict' && !reading ? prefs.maxAffected : undefined;
      const rows = await execute(req, scope, statement.text, statement.params, {
        readOnly: reading || !routine.volatile,
        maxAffected: limit,
        rollback: prefs.tx === 'rollback',
      });
      return respond(req, statement.shape, query, prefs, media, (rows as unknown as CallAnswer[])[0]);
    },
  };
}
