// SQL for logs.entries (batched inserts, daily partitions, search) and logs.retention.
import type { Queryable } from '../../core/db.js';
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
  /** Case-insensitive substring of the message or the details. */
  text?: string;
  /** Audit filters: the actor (user id, else the principal kind), the action, the module. */
  actor?: string;
  action?: string;
  module?: string;
}

const COLUMNS = `id, ts, source, level, method, route, status, duration_ms as "durationMs", principal,
  user_id as "userId", ip, request_id as "requestId", slug, message, details`;

/** One statement for a whole batch: each column is one array parameter, unnested into rows. */
export async function insertEntries(db: Queryable, entries: LogEntry[]): Promise<void> {
  const column = <T>(pick: (e: LogEntry) => T) => entries.map(pick);
  await db.unsafe(
    `insert into logs.entries (id, ts, source, level, method, route, status, duration_ms, principal, user_id, ip,
       request_id, slug, message, details)
     select id, to_timestamp(ms / 1000.0), source, level, method, route, status, duration_ms, principal, user_id, ip,
       request_id, slug, message, details
     from unnest($1::uuid[], $2::float8[], $3::text[], $4::text[], $5::text[], $6::text[],
       $7::int[], $8::real[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
       $15::text[]::jsonb[])
       as batch (id, ms, source, level, method, route, status, duration_ms, principal, user_id, ip, request_id, slug,
         message, details)`,
    [
      column((e) => e.id),
      column((e) => e.ts.getTime()),
      column((e) => e.source),
      column((e) => e.level),
      column((e) => e.method),
      column((e) => e.route),
      column((e) => e.status),
      column((e) => e.durationMs),
      column((e) => e.principal),
      column((e) => e.userId),
      column((e) => e.ip),
      column((e) => e.requestId),
      column((e) => e.slug),
      column((e) => e.message),
      column((e) => (e.details === null ? null : JSON.stringify(e.details))),
    ] as never[],
  );
}

/** Creates one daily partition of a source (nothing when it exists). */
export async function createPartition(db: Queryable, source: LogSource, name: string, day: Date, next: Date) {
  await db.unsafe(
    `create table if not exists logs."${name}" partition of logs."entries_${source}"
       for values from ('${day.toISOString()}') to ('${next.toISOString()}')`,
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

function whereOf(filter: EntryFilter): { clause: string; params: unknown[] } {
  const params: unknown[] = [];
  const conditions: string[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length}`));
  };
  add((p) => `source = any(${p}::text[])`, filter.sources);
  if (filter.from) add((p) => `ts >= ${p}`, filter.from);
  if (filter.to) add((p) => `ts <= ${p}`, filter.to);
  if (filter.level) add((p) => `level = ${p}`, filter.level);
  if (filter.slug) add((p) => `slug = ${p}`, filter.slug);
  if (filter.status !== undefined) add((p) => `status = ${p}`, filter.status);
  if (filter.userId) add((p) => `user_id = ${p}`, filter.userId);
  if (filter.requestId) add((p) => `request_id = ${p}`, filter.requestId);
  if (filter.actor) add((p) => `coalesce(user_id, principal) = ${p}`, filter.actor);
  if (filter.action) add((p) => `message = ${p}`, filter.action);
  if (filter.module) add((p) => `details->>'module' = ${p}`, filter.module);
  if (filter.text) {
    const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    add((p) => `(message ilike ${p} or details::text ilike ${p})`, pattern);
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
    `select ${COLUMNS} from logs.entries where ${clause} order by ts desc, seq desc
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
