// Function calls of the records API, as PostgREST's `/rpc/{fn}`: parse (arguments and the
// records grammar) → plan (the overload the argument names pick, checked against the schema
// cache; plan/) → one SQL statement (sql/call.ts) → run it in the caller's RLS-scoped
// transaction, read-only for GET and HEAD and for functions that are not volatile → respond as
// PostgREST would (respond.ts).
import { withRequestScope, type RequestScope, type Sql } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { scopeOf } from '../../core/principal.js';
import { consistencyKeyOf } from '../../platform/read-replicas/index.js';
import { negotiate } from './media.js';
import {
  applyRange,
  parse,
  preferencesOf,
  type PgrstRequest,
  type PgrstResponse,
  type PgrstServiceOptions,
} from './pgrst-request.js';
import { bodyNames, getArguments, planCall, postArguments } from './plan/call.js';
import { resolveRoutine, splitCallQuery } from './plan/routines.js';
import { schemaOf } from './plan/tables.js';
import { maxAffectedError, RolledBack, type AnswerRow } from './records-execute.js';
import { fromPostgresError } from './records-errors.js';
import { callReply } from './respond.js';
import type { SchemaCache } from './schema-cache.js';
import { renderCall } from './sql/call.js';

export type RpcMethod = 'GET' | 'HEAD' | 'POST';

export interface RpcRequest extends PgrstRequest {
  method: RpcMethod;
  functionName: string;
}

export type RpcResponse = PgrstResponse;

export type RpcService = ReturnType<typeof createRpcService>;

export function createRpcService(
  deps: Pick<Deps, 'sql' | 'config' | 'replicas'>,
  cache: SchemaCache,
  options: PgrstServiceOptions,
) {
  const { timezones } = options;
  /** The call in the caller's scope; read-only when it may not write; max-affected and tx=rollback checked before COMMIT. */
  async function execute(
    req: RpcRequest,
    scope: RequestScope,
    text: string,
    params: unknown[],
    run: { readOnly: boolean; maxAffected?: number; rollback: boolean; onReplica: boolean },
  ) {
    try {
      // A stable or immutable function called over GET may run on a read replica that has
      // replayed the caller's own writes; everything else runs on the primary.
      if (!run.onReplica) return await callIn(deps.sql, scope, text, params, run);
      const session = { session: consistencyKeyOf(req.principal) };
      return await deps.replicas.read(session, (sql) => callIn(sql, scope, text, params, run));
    } catch (err) {
      if (err instanceof RolledBack) return err.rows;
      // A write in a read-only call is PostgREST's 405 25006 (records-errors declares it).
      throw fromPostgresError(err, req.principal.kind === 'anon') ?? err;
    }
  }

  function callIn(
    sql: Sql,
    scope: RequestScope,
    text: string,
    params: unknown[],
    run: { readOnly: boolean; maxAffected?: number; rollback: boolean },
  ) {
    return withRequestScope(
      sql,
      scope,
      async (tx) => {
        // Sent first and pipelined with the call: a transaction may turn read-only at any point.
        const readOnlyMode = run.readOnly ? tx.unsafe('set transaction read only') : undefined;
        const [, rows] = await Promise.all([readOnlyMode, tx.unsafe(text, params as never[], { prepare: true })]);
        const returned = (rows[0] as AnswerRow | undefined)?.page_rows ?? 0;
        if (run.maxAffected !== undefined && returned > run.maxAffected) throw maxAffectedError(returned);
        if (run.rollback) throw new RolledBack(rows);
        return rows;
      },
      run.readOnly || run.rollback ? 'reads' : 'writes',
    );
  }

  return {
    async call(req: RpcRequest): Promise<RpcResponse> {
      const reading = req.method !== 'POST';
      const schema = schemaOf(req, reading, options.schemas);

      const split = reading ? splitCallQuery(req.query) : { args: new Map<string, string[]>(), grammar: req.query };
      const names = reading ? new Set(split.args.keys()) : bodyNames(req.body);
      const media = negotiate(req.headers.accept);
      const { scope, prefs } = await timezones.apply(
        scopeOf(req.principal, deps.config.statementTimeouts),
        preferencesOf(req.headers.prefer),
      );
      const query = applyRange(parse(split.grammar), reading ? req.headers.range : undefined);
      const routine = await resolveRoutine(cache, schema, req.functionName, names, !reading);
      const args = reading ? getArguments(routine, split.args) : postArguments(routine, req.body);
      const plan = planCall(cache.current(), routine, args, query, options.maxRows);
      const statement = renderCall(plan, { count: prefs.count !== undefined });

      const limit = prefs.handling === 'strict' && !reading ? prefs.maxAffected : undefined;
      const rows = await execute(req, scope, statement.text, statement.params, {
        readOnly: reading || !routine.volatile,
        maxAffected: limit,
        rollback: prefs.tx === 'rollback',
        onReplica: reading && !routine.volatile,
      });
      const offset = plan.result?.node.page.offset ?? 0;
      const reply = { head: req.method === 'HEAD', functionName: req.functionName, shape: plan.shape, offset };
      return callReply({ ...reply, prefs, media }, (rows as unknown as AnswerRow[])[0]);
    },
  };
}
