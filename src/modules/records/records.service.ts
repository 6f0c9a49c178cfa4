// The records pipeline: parse the request (PostgREST grammar) → plan it against the schema cache
// (plan/: every name resolved, every schema error raised) → render one SQL statement (sql/) → run
// it in a transaction scoped to the caller's role and claims (row-level security decides) →
// respond as PostgREST would (respond.ts).
import type { Deps } from '../../deps.js';
import { scopeOf } from '../../core/principal.js';
import { consistencyKeyOf } from '../../platform/read-replicas/index.js';
import { createIdempotency, keyedRequest, type StoredOutcome } from '../idempotency/index.js';
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
import { execute, executeIn, executeOptionsFor, type Answer } from './records-execute.js';
import { fromPostgresError } from './records-errors.js';
import { recordsReply } from './respond.js';
import type { SchemaCache } from './schema-cache.js';
import { renderRead, renderWrite } from './sql/statements.js';

export interface RecordsRequest extends PgrstRequest {
  method: RecordsMethod;
  table: string;
  /** The Idempotency-Key header (honoured on inserts). */
  idempotencyKey?: string;
}

const storedOf = (response: PgrstResponse): StoredOutcome => ({
  status: response.status,
  headers: response.headers,
  body: response.body === undefined ? null : Buffer.from(response.body, 'utf8'),
});

export type RecordsResponse = PgrstResponse;

export type RecordsService = ReturnType<typeof createRecordsService>;

export function createRecordsService(
  deps: Pick<Deps, 'sql' | 'config' | 'clock' | 'replicas'>,
  cache: SchemaCache,
  options: PgrstServiceOptions,
) {
  const { timezones, maxRows } = options;
  const idempotency = createIdempotency(deps);
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

      const run = executeOptionsFor({ method, plan, prefs, media }, maxRows);
      const reply = (answer: Answer) => recordsReply({ method, plan, statement, prefs, media }, answer);
      try {
        // An insert with an Idempotency-Key: its outcome is stored with it, in its transaction.
        if (req.idempotencyKey && method === 'POST' && !run.rollback) {
          const keyed = keyedRequest(req.principal, `records:${table.schema}.${table.name}`, req.idempotencyKey, [
            req.query,
            req.headers,
            body,
          ]);
          const outcome = await idempotency.inTransaction(scope, keyed, async (tx) =>
            storedOf(reply(await executeIn(tx, statement, run))),
          );
          return { status: outcome.status, headers: outcome.headers, body: outcome.body?.toString('utf8') };
        }
        // Reads may run on a read replica that has replayed the caller's own writes.
        if (reading) {
          const session = { session: consistencyKeyOf(req.principal) };
          return reply(await deps.replicas.read(session, (sql) => execute(sql, scope, statement, run)));
        }
        return reply(await execute(deps.sql, scope, statement, run));
      } catch (err) {
        throw fromPostgresError(err, req.principal.kind === 'anon') ?? err;
      }
    },
  };
}
