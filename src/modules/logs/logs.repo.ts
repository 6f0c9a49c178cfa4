// SQL for logs.entries (batches by COPY, daily partitions, search) and logs.retention.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Queryable, Sql } from '../../core/db.js';
import { COPY_COLUMNS } from './copy-tuple.js';
import { ANALYZE_THRESHOLD_ROWS, isUnlogged } from './partitions.js';
import type { LogEntry, LogSource } from './log-entry.js';

/** An entry as read back: the level is whatever was stored. */
export type StoredEntry = Omit<LogEntry, 'level'> & { level: string };

export interface EntryFilter {
  sources: LogSource[];
  from?: Date;
  to?: Date;
  level?: string;
  slug?: string;
  status?: number;
  userId?: string;
  requestId?: string;
  /** Case-insensitive substring of the message, the details, the request id or the user id. */
  text?: string;
  /** Requests on these route patterns are left out (other sources are not affected). */
  excludeRoutes?: readonly string[];
  /** Audit filters: the actor (user id, else the principal kind), the action, the module. */
  actor?: string;
  action?: string;
  module?: string;
}

const COLUMNS = `id, ts, source, level, method, route, status, duration_ms as "durationMs", principal,
  user_id as "userId", ip, request_id as "requestId", slug, message, details`;

/**
 * A whole batch in one binary COPY (its tuples in COPY_COLUMNS order), routed by PostgreSQL to its
 * partitions. Reserved: a pool pipelines other queries onto a connection in COPY mode, and the
 * protocol error fails them all.
 */
export async function copyEntries(sql: Sql, stream: Buffer): Promise<void> {
  const conn = await sql.reserve();
  try {
    const writable = await conn.unsafe(`copy logs.entries (${COPY_COLUMNS}) from stdin (format binary)`).writable();
    await pipeline(Readable.from([stream]), writable);
  } finally {
    conn.release();
  }
}

/** Creates one daily partition of a source (nothing when it exists). */
export async function createPartition(db: Queryable, source: LogSource, name: string, day: Date, next: Date) {
  await db.unsafe(
    `create ${isUnlogged(source) ? 'unlogged ' : ''}table if not exists logs."${name}" partition of logs."entries_${source}"
       for values from ('${day.toISOString()}') to ('${next.toISOString()}')
       with (autovacuum_analyze_threshold = ${ANALYZE_THRESHOLD_ROWS})`,
  );
}

/** The names of a source's daily partitions. */
export async function listPartitions(db: Queryable, source: LogSource): Promise<string[]> {
  const rows = await db.unsafe<{ name: string }[]>(
    `select c.relname as name from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
       join pg_class p on p.oid = i.inhparent
       join pg_namespace n on n.oid = p.relnamespace
     where n.nspname = 'logs' and p.relname = $1`,
    [`entries_${source}`],
  );
  return rows.map((r) => r.name);
}

export async function dropPartition(db: Queryable, name: string): Promise<void> {
  await db.unsafe(`drop table if exists logs."${name}"`);
}

const ASCII = /^[\x20-\x7e]*$/;

function whereOf(filter: EntryFilter): { clause: string; params: unknown[] } {
  const params: unknown[] = [];
  const conditions: string[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length}`));
  };
  add((p) => `source = any(${p}::text[])`, filter.sources);
  if (filter.from) add((p) => `ts >= ${p}`, filter.from);
  // Inclusive of the whole millisecond: stored times carry an arrival order in microseconds.
  if (filter.to) add((p) => `ts < ${p}`, new Date(filter.to.getTime() + 1));
  if (filter.level) add((p) => `level = ${p}`, filter.level);
  if (filter.slug) add((p) => `slug = ${p}`, filter.slug);
  if (filter.status !== undefined) add((p) => `status = ${p}`, filter.status);
  if (filter.userId) add((p) => `user_id = ${p}`, filter.userId);
  if (filter.requestId) add((p) => `request_id = ${p}`, filter.requestId);
  if (filter.excludeRoutes?.length) {
    add((p) => `not (source = 'requests' and coalesce(route = any(${p}::text[]), false))`, filter.excludeRoutes);
  }
  if (filter.actor) add((p) => `coalesce(user_id, principal) = ${p}`, filter.actor);
  if (filter.action) add((p) => `message = ${p}`, filter.action);
  if (filter.module) add((p) => `details->>'module' = ${p}`, filter.module);
  if (filter.text) {
    const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // ASCII text is matched under collation "C": ASCII-only case folding, ~4× cheaper a row than
    // the database locale's (a search without a time range reads every row). Other text keeps it.
    const collate = ASCII.test(filter.text) ? ' collate "C"' : '';
    // Ids too: a request id (what a user pastes first, from an X-Request-Id or an error) or a user id.
    add(
      (p) =>
        `(message${collate} ilike ${p} or details::text${collate} ilike ${p} or request_id${collate} ilike ${p} or user_id${collate} ilike ${p})`,
      pattern,
    );
  }
  return { clause: conditions.join(' and '), params };
}

/** Entries matching the filter, newest first. */
export async function searchEntries(
  db: Queryable,
  filter: EntryFilter,
  limit: number,
  offset: number,
): Promise<StoredEntry[]> {
  const { clause, params } = whereOf(filter);
  return db.unsafe<StoredEntry[]>(
    `select ${COLUMNS} from logs.entries where ${clause} order by ts desc, id desc
     limit ${Math.trunc(limit)} offset ${Math.trunc(offset)}`,
    params as never[],
  );
}

/** How many entries match, counted up to `cap` (more: cap + 1), so a count never scans everything. */
export async function countEntries(db: Queryable, filter: EntryFilter, cap: number): Promise<number> {
  const { clause, params } = whereOf(filter);
  const [row] = await db.unsafe<{ count: number }[]>(
    `select count(*)::int as count from (select 1 from logs.entries where ${clause} limit ${Math.trunc(cap) + 1}) s`,
    params as never[],
  );
  return row?.count ?? 0;
}

export async function readRetention(db: Queryable): Promise<{ source: LogSource; days: number }[]> {
  return db.unsafe(`select source, days from logs.retention order by source`);
}

export async function writeRetention(db: Queryable, source: LogSource, days: number): Promise<void> {
  await db.unsafe(
    `insert into logs.retention (source, days) values ($1, $2)
     on conflict (source) do update set days = excluded.days`,
    [source, days],
  );
}

/** Audit records since `from`: how many, by how many actors and modules, and per module. */
export async function auditStats(db: Queryable, from: Date) {
  const [totals] = await db.unsafe<{ total: number; actors: number; modules: number }[]>(
    `select count(*)::int as total, count(distinct coalesce(user_id, principal))::int as actors,
       count(distinct coalesce(details->>'module', 'API'))::int as modules
     from logs.entries where source = 'audit' and ts >= $1`,
    [from],
  );
  const byModule = await db.unsafe<{ module: string; count: number }[]>(
    `select coalesce(details->>'module', 'API') as module, count(*)::int as count
     from logs.entries where source = 'audit' and ts >= $1 group by 1 order by 1`,
    [from],
  );
  return { totals: totals ?? { total: 0, actors: 0, modules: 0 }, byModule };
}
