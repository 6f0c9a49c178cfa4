// How a records statement runs: BEGIN, scope, statement and COMMIT in one round trip, unless the
// request needs the transaction open longer — a planned or estimated count (EXPLAIN first), a
// max-affected limit checked before COMMIT (handling=strict), or tx=rollback.
import { runScoped, withRequestScope, type Effect, type RequestScope, type Sql } from '../../core/db.js';
import type { Preferences } from './grammar/ast.js';
import type { Media } from './media.js';
import type { RecordsMethod, RecordsPlan } from './plan/request.js';
import { recordsError } from './records-errors.js';
import { renderPlannedCount, renderRead, type Statement } from './sql/statements.js';

/** The one row a statement answers: the body PostgreSQL built, the rows on the page, the total. */
export interface AnswerRow {
  body?: string | null;
  page_rows?: number | null;
  total?: string | number | null;
  inserted?: number;
}

export interface Answer {
  rows: AnswerRow[];
  /** The statement's row count (rows changed, for writes without a body). */
  affected: number;
}

export interface ExecuteOptions {
  /** count=planned|estimated: EXPLAIN `count` for the total; exact (`exact`) when it plans ≤ `exactUpTo` rows. */
  planned?: { count: Statement; exact?: Statement; exactUpTo?: number };
  /** handling=strict with max-affected=n: more changed rows fail the request (and roll back). */
  maxAffected?: number;
  rollback?: boolean;
  /** The answer must hold exactly one row (vnd.pgrst.object+json on a write), else PGRST116 and roll back. */
  oneRow?: boolean;
  /** A write whose answer is lost may have committed (OUTCOME_UNKNOWN); a read was simply not completed. */
  effect?: Effect;
}

export const notOneRow = (rows: number) =>
  recordsError('NOT_ACCEPTABLE', 'PGRST116', 'JSON object requested, multiple (or no) rows returned', {
    details: `The result contains ${rows} rows`,
  });

export const maxAffectedError = (rows: number) =>
  recordsError('VALIDATION_ERROR', 'PGRST124', 'Query result exceeds max-affected preference constraint', {
    details: `The query affects ${rows} rows`,
  });

/** What keeps the transaction open past one round trip: planned counts, max-affected, rollback. */
export function executeOptionsFor(
  request: { method: RecordsMethod; plan: RecordsPlan; prefs: Preferences; media: Media },
  maxRows: number,
): ExecuteOptions {
  const { method, plan, prefs } = request;
  const estimating = prefs.count === 'planned' || prefs.count === 'estimated';
  const planned =
    plan.kind === 'read' && estimating
      ? {
          count: renderPlannedCount(plan),
          exact: prefs.count === 'estimated' ? renderRead(plan, { count: true }) : undefined,
          exactUpTo: maxRows,
        }
      : undefined;
  const limited =
    prefs.handling === 'strict' && (method === 'PATCH' || method === 'DELETE') ? prefs.maxAffected : undefined;
  // A write answering one object must change exactly one row, or nothing (PostgREST rolls back).
  const oneRow = plan.kind !== 'read' && prefs.return === 'representation' && request.media === 'object';
  const effect = plan.kind === 'read' ? 'reads' : 'writes';
  return { planned, maxAffected: limited, rollback: prefs.tx === 'rollback', oneRow, effect };
}

/** Thrown inside the transaction to roll it back (tx=rollback) while keeping what it answered. */
export class RolledBack<T = Answer> {
  constructor(readonly rows: T) {}
}

/** The rows a write changed: its answer's page_rows when it returns any, else its row count. */
const changedRows = (statement: Statement, answer: Answer) =>
  statement.returnsBody || statement.reportsInserted ? (answer.rows[0]?.page_rows ?? 0) : answer.affected;

async function planRows(tx: Sql, count: Statement): Promise<number> {
  const [row] = await tx.unsafe(`explain (format json) ${count.text}`, count.params as never[]);
  const plan = row?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: { 'Plan Rows': number } }[];
  return Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
}

export async function execute(
  sql: Sql,
  scope: RequestScope,
  statement: Statement,
  options: ExecuteOptions = {},
): Promise<Answer> {
  if (!options.planned && options.maxAffected === undefined && !options.rollback && !options.oneRow) {
    // Prepared (statements repeat by shape; values are always parameters).
    const result = await runScoped(sql, scope, statement.text, statement.params, options.effect);
    return { rows: result as unknown as AnswerRow[], affected: result.count };
  }
  try {
    return await withRequestScope(sql, scope, (tx) => executeIn(tx, statement, options), options.effect);
  } catch (err) {
    if (err instanceof RolledBack) return err.rows as Answer;
    throw err;
  }
}

/** The statement and its checks inside an open transaction (tx=rollback throws RolledBack). */
export async function executeIn(tx: Sql, statement: Statement, options: ExecuteOptions = {}): Promise<Answer> {
  let run = statement;
  let planned: number | undefined;
  if (options.planned) {
    planned = await planRows(tx, options.planned.count);
    if (options.planned.exact && planned <= (options.planned.exactUpTo ?? 0)) {
      run = options.planned.exact;
      planned = undefined;
    }
  }
  const result = await tx.unsafe(run.text, run.params as never[], { prepare: true });
  const answer: Answer = { rows: result as unknown as AnswerRow[], affected: result.count };
  if (planned !== undefined && answer.rows[0]) answer.rows[0].total = planned;
  const changed = changedRows(run, answer);
  if (options.maxAffected !== undefined && changed > options.maxAffected) throw maxAffectedError(changed);
  if (options.oneRow && changed !== 1) throw notOneRow(changed);
  if (options.rollback) throw new RolledBack(answer);
  return answer;
}
