// SQL of read replicas: the primary's WAL position now, and how far a standby has replayed.
import type { Sql } from '../../core/db.js';
import { parseLsn } from './lsn.js';

/**
 * The primary's insert position: at or past the end of every transaction committed before the
 * query ran (the write position can trail it with synchronous_commit off).
 */
export async function primaryPosition(sql: Sql): Promise<bigint> {
  const [row] = await sql<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
  return parseLsn(row?.lsn ?? '0/0');
}

/** How far a standby has replayed; throws for a server that is not in recovery (not a replica). */
export async function replayPosition(sql: Sql): Promise<bigint> {
  const [row] = await sql<{ lsn: string | null }[]>`select pg_last_wal_replay_lsn()::text as lsn`;
  if (!row?.lsn) throw new Error('not a streaming replica (pg_last_wal_replay_lsn() is null)');
  return parseLsn(row.lsn);
}
