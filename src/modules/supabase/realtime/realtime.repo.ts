// SQL of Supabase Realtime on Plinth's realtime schema: a broadcast stored as a realtime.messages
// row (as the server on a public topic; under the caller's role and claims, so INSERT policies
// judge it, on a private one), the join probe of a private topic (SELECT and INSERT policies of
// realtime.messages, rolled back), the tables the `supabase_realtime` publication opts in (watched
// on demand) and a table's column types for the postgres_changes payload.
import type postgres from 'postgres';
import { type Queryable, type RequestScope, type Sql, withRequestScope } from '../../../core/db.js';
import { outboxLines } from '../../realtime/index.js';

export interface BroadcastRow {
  /** Plinth's channel name (supabase:<topic>). */
  channel: string;
  topic: string;
  event: string;
  /** The stored payload as JSON text. */
  payloadJson: string;
  private: boolean;
  senderType: 'system' | 'user';
  senderId: string | null;
}

/**
 * `topic` is computed by set_config, so realtime.topic() reads it while policies judge the row.
 * No RETURNING: a send needs INSERT only.
 */
const INSERT_BROADCAST = `insert into realtime.messages
  (event_name, channel_name, topic, extension, private, payload, sender_type, sender_id)
  values ($1, $2, set_config('realtime.topic', $3, true), 'broadcast', $4, $5::text::jsonb, $6, $7::uuid)`;

const params = (row: BroadcastRow) => [
  row.event,
  row.channel,
  row.topic,
  row.private,
  row.payloadJson,
  row.senderType,
  row.senderId,
];

/**
 * Stores broadcasts; `scope` null runs as the server (public topics, the service key). One
 * transaction. With `collect` (a broker carries messages) they are not announced by NOTIFY: their
 * JSON is returned, for the caller to announce after the commit (announceMessages).
 */
export async function insertBroadcasts(
  sql: Sql,
  scope: RequestScope | null,
  rows: BroadcastRow[],
  collect = false,
): Promise<string[]> {
  const run = async (db: Queryable | postgres.Sql) => {
    if (collect) await db`select set_config('plinth.bus', 'collect', true)`;
    for (const row of rows) await db.unsafe(INSERT_BROADCAST, params(row) as never[], { prepare: true });
    if (!collect) return [];
    const [read] = await db<{ outbox: string | null }[]>`select current_setting('plinth.bus_outbox', true) as outbox`;
    return outboxLines(read?.outbox);
  };
  if (scope === null) return (await sql.begin((tx) => run(tx))) as string[];
  return withRequestScope(sql, scope, (tx) => run(tx), 'writes');
}

export interface TopicAccess {
  /** Row-level security is on for realtime.messages (private topics are refused while it is off). */
  rls: boolean;
  readBroadcast: boolean;
  readPresence: boolean;
  writePresence: boolean;
}

const ROLLBACK = Symbol('rollback');

/**
 * What the caller may do on a private topic, as Supabase's Realtime Authorization decides it: a
 * probe row per extension is written as the server, then, under the caller's role and claims
 * (realtime.topic() set), SELECT policies decide which it sees and an INSERT of a presence row
 * decides whether it may track. All rolled back.
 */
export async function topicAccess(sql: Sql, scope: RequestScope, channel: string, topic: string): Promise<TopicAccess> {
  const access: TopicAccess = { rls: false, readBroadcast: false, readPresence: false, writePresence: false };
  await sql
    .begin(async (tx) => {
      const [table] = await tx<{ rls: boolean }[]>`
        select relrowsecurity as rls from pg_class where oid = 'realtime.messages'::regclass`;
      access.rls = table?.rls === true;
      if (!access.rls) throw ROLLBACK;
      const probes = await tx<{ id: string; extension: string }[]>`
        insert into realtime.messages (event_name, channel_name, topic, extension, private, payload)
        select 'phx_join', ${channel}, ${topic}, e, true, '{}'::jsonb from unnest(array['broadcast', 'presence']) e
        returning id, extension`;
      await tx.unsafe(
        `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
           set_config('realtime.topic', $3, true), set_config('statement_timeout', $4, true)`,
        [scope.role, JSON.stringify(scope.claims), topic, String(scope.statementTimeoutMs ?? 0)],
      );
      const seen = await tx<{ id: string }[]>`
        select id from realtime.messages where id = any(${probes.map((p) => p.id)}::uuid[])`;
      const seenIds = new Set(seen.map((r) => r.id));
      for (const probe of probes) {
        if (!seenIds.has(probe.id)) continue;
        if (probe.extension === 'broadcast') access.readBroadcast = true;
        else access.readPresence = true;
      }
      access.writePresence = await tx
        .savepoint(async (sp) => {
          await sp`
            insert into realtime.messages (event_name, channel_name, topic, extension, private, payload)
            values ('track', ${channel}, ${topic}, 'presence', true, '{}'::jsonb)`;
          return true;
        })
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === '42501') return false;
          throw err;
        });
      throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
  return access;
}

/** Is the table watched (Plinth's changes) or opted in by the `supabase_realtime` publication? */
export async function tableStatus(db: Queryable, schema: string, table: string) {
  const [row] = await db<{ exists: boolean; watched: boolean; published: boolean }[]>`
    with t as (
      select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relname = ${table} and c.relkind in ('r', 'p')
    )
    select exists (select from t) as exists,
      exists (select from realtime.watched_tables w join t on t.oid = w.table_oid) as watched,
      exists (select from pg_publication_tables p where p.pubname = 'supabase_realtime'
        and p.schemaname = ${schema} and p.tablename = ${table}) as published`;
  return row ?? { exists: false, watched: false, published: false };
}

/** Starts Plinth's change trigger on a table the publication opted in. */
export async function watchTable(db: Queryable, schema: string, table: string): Promise<void> {
  await db`select realtime.watch_table(format('%I.%I', ${schema}::text, ${table}::text)::regclass)`;
}

/** The table's columns with their type names (Supabase's `columns`), in order. */
export function columnTypes(db: Queryable, schema: string, table: string) {
  return db<{ name: string; type: string }[]>`
    select a.attname as name, t.typname as type
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    where a.attrelid = format('%I.%I', ${schema}::text, ${table}::text)::regclass and a.attnum > 0 and not a.attisdropped
    order by a.attnum`;
}
