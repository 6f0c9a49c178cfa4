// SQL of the realtime admin routes: channel patterns, stored messages, their statistics and the
// retention setting (run as the server's own login, outside any request scope).
import type { Queryable } from '../../core/db.js';
import type { CreateChannel, ListMessages, StatsQuery, UpdateChannel } from './realtime.schemas.js';

export interface ChannelRow {
  id: string;
  pattern: string;
  description: string | null;
  webhookUrls: string[] | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface MessageRow {
  id: string;
  eventName: string;
  channelId: string | null;
  channelName: string;
  payload: unknown;
  senderType: 'system' | 'user';
  senderId: string | null;
  wsAudienceCount: number;
  whAudienceCount: number;
  whDeliveredCount: number;
  createdAt: Date;
}

const CHANNEL = `id, pattern, description, webhook_urls as "webhookUrls", enabled,
  created_at as "createdAt", updated_at as "updatedAt"`;

const MESSAGE = `id, event_name as "eventName", channel_id as "channelId", channel_name as "channelName",
  payload, sender_type as "senderType", sender_id as "senderId", ws_audience_count as "wsAudienceCount",
  wh_audience_count as "whAudienceCount", wh_delivered_count as "whDeliveredCount", created_at as "createdAt"`;

export function listChannels(db: Queryable): Promise<ChannelRow[]> {
  return db.unsafe<ChannelRow[]>(`select ${CHANNEL} from realtime.channels order by created_at desc, id`);
}

export async function findChannel(db: Queryable, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.unsafe<ChannelRow[]>(`select ${CHANNEL} from realtime.channels where id = $1`, [id]);
  return row;
}

export async function insertChannel(db: Queryable, input: CreateChannel): Promise<ChannelRow> {
  const [row] = await db.unsafe<ChannelRow[]>(
    `insert into realtime.channels (pattern, description, webhook_urls, enabled)
     values ($1, $2, $3, $4) returning ${CHANNEL}`,
    [input.pattern, input.description ?? null, (input.webhookUrls ?? null) as never, input.enabled ?? true],
  );
  return row as ChannelRow;
}

/** Absent fields keep their value. */
export async function updateChannel(db: Queryable, id: string, input: UpdateChannel): Promise<ChannelRow | undefined> {
  const [row] = await db.unsafe<ChannelRow[]>(
    `update realtime.channels set
       pattern = coalesce($2, pattern),
       description = case when $3::boolean then $4 else description end,
       webhook_urls = case when $5::boolean then $6::text[] else webhook_urls end,
       enabled = coalesce($7, enabled)
     where id = $1 returning ${CHANNEL}`,
    [
      id,
      input.pattern ?? null,
      input.description !== undefined,
      input.description ?? null,
      input.webhookUrls !== undefined,
      (input.webhookUrls ?? null) as never,
      input.enabled ?? null,
    ],
  );
  return row;
}

export async function deleteChannel(db: Queryable, id: string): Promise<boolean> {
  const result = await db`delete from realtime.channels where id = ${id}`;
  return result.count > 0;
}

export function listMessages(db: Queryable, query: ListMessages): Promise<MessageRow[]> {
  return db.unsafe<MessageRow[]>(
    `select ${MESSAGE} from realtime.messages
     where ($1::uuid is null or channel_id = $1) and ($2::text is null or event_name = $2)
     order by created_at desc, id limit $3 offset $4`,
    [query.channelId ?? null, query.eventName ?? null, query.limit, query.offset],
  );
}

/** Deletes every message committed before this statement; returns how many. */
export async function deleteMessages(db: Queryable): Promise<number> {
  const result = await db`delete from realtime.messages where created_at <= now()`;
  return result.count;
}

export async function messageStats(db: Queryable, query: StatsQuery) {
  const filter = [query.channelId ?? null, query.since ?? null] as never[];
  const where = `($1::uuid is null or channel_id = $1) and ($2::timestamptz is null or created_at >= $2)`;
  const [[totals], topEvents] = await Promise.all([
    db.unsafe<{ total: number; audience: number; delivered: number }[]>(
      `select count(*)::int as total, coalesce(sum(wh_audience_count), 0)::int as audience,
         coalesce(sum(wh_delivered_count), 0)::int as delivered
       from realtime.messages where ${where}`,
      filter,
    ),
    db.unsafe<{ eventName: string; count: number }[]>(
      `select event_name as "eventName", count(*)::int as count from realtime.messages where ${where}
       group by event_name order by count(*) desc, event_name limit 10`,
      filter,
    ),
  ]);
  return { totals: totals ?? { total: 0, audience: 0, delivered: 0 }, topEvents };
}

/**
 * The retention in days: the admin's setting (null: forever), or `defaultDays` while none was
 * set (null: forever).
 */
export async function readRetentionDays(db: Queryable, defaultDays: number | null): Promise<number | null> {
  const [row] = await db<{ retentionDays: number | null }[]>`
    select case when retention_explicit then retention_days else ${defaultDays}::int end as "retentionDays"
    from realtime.config limit 1`;
  return row ? row.retentionDays : defaultDays;
}

export async function writeRetentionDays(db: Queryable, days: number | null): Promise<void> {
  await db`update realtime.config set retention_days = ${days}, retention_explicit = true`;
}

/** Deletes up to `batch` messages older than the retention (readRetentionDays) at `now`; how many. */
export async function purgeExpiredMessages(
  db: Queryable,
  now: Date,
  batch: number,
  defaultDays: number | null,
): Promise<number> {
  const result = await db`
    delete from realtime.messages where id in (
      select m.id from realtime.messages m,
        (select case when retention_explicit then retention_days else ${defaultDays}::int end as days
         from realtime.config limit 1) c
      where c.days is not null and m.created_at < ${now}::timestamptz - make_interval(days => c.days)
      limit ${batch})`;
  return result.count;
}

export interface PolicyRow {
  policyName: string;
  tableName: 'channels' | 'messages';
  command: string;
  roles: string[];
  using: string | null;
  withCheck: string | null;
}

/** The row-level security policies on realtime.channels and realtime.messages, by name. */
export function realtimePolicies(db: Queryable): Promise<PolicyRow[]> {
  return db<PolicyRow[]>`
    select policyname as "policyName", tablename as "tableName", cmd as command, roles::text[] as roles,
      qual as using, with_check as "withCheck"
    from pg_policies
    where schemaname = 'realtime' and tablename in ('channels', 'messages') and policyname <> 'project_admin_policy'
    order by policyname`;
}
