// Plan then render in one call: the statement of a parsed query on a table (or of a function
// call), for callers that need one statement and not the plan — the planner's tests and tools.
// The service plans once and renders what it needs (a read's count variants share one plan).
import type { ParsedQuery } from './grammar/ast.js';
import { planCall, type RpcArguments } from './plan/call.js';
import { planRead, planRoot } from './plan/reads.js';
import { planDelete, planInsert, planUpdate, type InsertOptions } from './plan/writes.js';
import type { Routine, SchemaSnapshot, Table } from './schema-cache.js';
import { renderCall, type RpcStatement } from './sql/call.js';
import { renderPlannedCount, renderRead, renderWrite, type Statement } from './sql/statements.js';

export function readStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  options: { maxRows: number; count: boolean },
): Statement {
  return renderRead(planRead(snapshot, table, query, options.maxRows), options);
}

/** The rows a read would return before paging (count=planned), for EXPLAIN to estimate. */
export function plannedCountStatement(snapshot: SchemaSnapshot, table: Table, query: ParsedQuery): Statement {
  // The count has no page: the row cap given here is never rendered.
  return renderPlannedCount(planRoot(snapshot, table, query, { maxRows: 0 }));
}

export function insertStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  rows: unknown[],
  options: InsertOptions,
): Statement {
  return renderWrite(planInsert(snapshot, table, query, rows, options));
}

export function updateStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  changes: Record<string, unknown>,
  representation: boolean,
): Statement {
  return renderWrite(planUpdate(snapshot, table, query, changes, representation));
}

export function deleteStatement(
  snapshot: SchemaSnapshot,
  table: Table,
  query: ParsedQuery,
  representation: boolean,
): Statement {
  return renderWrite(planDelete(snapshot, table, query, representation));
}

/** The statement calling `routine` with `args`, its result shaped by `query`. */
export function callStatement(
  snapshot: SchemaSnapshot,
  routine: Routine,
  args: RpcArguments,
  query: ParsedQuery,
  options: { maxRows: number; count: boolean },
): RpcStatement {
  return renderCall(planCall(snapshot, routine, args, query, options.maxRows), options);
}
