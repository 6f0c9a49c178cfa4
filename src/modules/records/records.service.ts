// The records pipeline: parse the request (PostgREST grammar) → plan it against the schema cache
// (plan/: every name resolved, every schema error raised) → render one SQL statement (sql/) → run
// it in a transaction scoped to the caller's role and claims (row-level security decides) →
// respond as PostgREST would (respond.ts).
import type { Deps } from '../../deps.js';
import { scopeOf } from '../../http/request-scope.js';
import { negotiate } from './media.js';
import {
  applyRange,
  parse,
  preferencesOf,
  type PgrstRequest,
  type PgrstResponse,
  type PgrstServiceOptions,
} from './pgrst-request.js';
import { planRecords, type RecordsMethod } from './plan/request.js';
import { resolveTable, schemaOf } from './plan/tables.js';
import { execute, executeOptionsFor, type Answer } from './records-execute.js';
import { fromPostgresError } from './records-errors.js';
import { recordsReply } from './respond.js';
import type { SchemaCache } from './schema-cache.js';
import { renderRead, renderWrite } from './sql/statements.js';

export interface RecordsRequest extends PgrstRequest {
  method: RecordsMethod;
  table: string;
}

export type RecordsResponse = PgrstResponse;

export type RecordsService = ReturnType<typeof createRecordsService>;

export function createRecordsService(
  deps: Pick<Deps, 'sql' | 'config'>,
  cache: SchemaCache,
  options: PgrstServiceOptions,
) {
  const { timezones, maxRows } = options;
  return {
    async handle(req: RecordsRequest): Promise<RecordsResponse> {
      const reading = req.method === 'GET' || req.method === 'HEAD';
      const table = await resolveTable(cache, schemaOf(req, reading, options.schemas), req.table);
      const media = negotiate(req.headers.accept);
      const { scope, prefs } = await timezones.apply(
        scopeOf(req.principal, deps.config.statementTimeouts),
        preferencesOf(req.headers.prefer),
      );
      const query = applyRange(parse(req.query), reading ? req.headers.range : undefined);
      const { method, body } = req;
      const plan = planRecords(cache.current(), { method, query, body, prefs, maxRows }, table);
      const statement = plan.kind === 'read' ? renderRead(plan, { count: prefs.count === 'exact' }) : renderWrite(plan);

      let answer: Answer;
      try {
        answer = await execute(deps.sql, scope, statement, executeOptionsFor({ method, plan, prefs, media }, maxRows));
      } catch (err) {
        throw fromPostgresError(err, req.principal.kind === 'anon') ?? err;
      }
      return recordsReply({ method, plan, statement, prefs, media }, answer);
    },
  };
}
