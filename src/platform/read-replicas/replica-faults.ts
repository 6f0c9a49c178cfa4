// Which failures of a read on a replica are the replica's, so that the read runs again on the
// primary instead of failing: a lost or refused connection, a full replica pool, a query the
// standby cancelled to replay WAL, or a catalog that has not replayed a migration yet. Anything
// else (a policy refusing the row, bad input) would fail on the primary too and is the caller's.
import { AppError } from '../../core/errors.js';
import { asPgError, connectionFailure } from '../../core/pg-errors.js';

/** SQLSTATEs a standby raises that the primary would not. */
const STANDBY_ONLY = new Set([
  '40001', // serialization_failure: "canceling statement due to conflict with recovery"
  '40P01', // deadlock_detected: the same, for a buffer pin the startup process waited on
  '25006', // read_only_sql_transaction: the statement wrote after all
  '42P01', // undefined_table: a migration the standby has not replayed yet
  '42703', // undefined_column
  '42883', // undefined_function
  '42704', // undefined_object (a type)
  '3F000', // invalid_schema_name
]);

export type ReplicaFault = 'unavailable' | 'behind';

/** 'unavailable': the replica leaves the rotation; 'behind': just this read goes to the primary. */
export function replicaFault(err: unknown): ReplicaFault | undefined {
  if (err instanceof AppError) return err.code === 'SERVICE_UNAVAILABLE' ? 'unavailable' : undefined;
  if (connectionFailure(err)) return 'unavailable';
  const pg = asPgError(err);
  return pg && STANDBY_ONLY.has(pg.code) ? 'behind' : undefined;
}
