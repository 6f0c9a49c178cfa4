// SQL of cluster-wide presence: server heartbeats, one row per subscribed socket, the members
// of a channel on live servers, and the sweep of dead servers' rows (events go out on the bus).
import type { Queryable } from '../../core/db.js';

export const PRESENCE_CHANNEL = 'realtime_presence';

export interface MemberRow {
  type: 'user' | 'anonymous';
  presenceId: string;
  joinedAt: Date;
  /** What the member tracked (Supabase presence); null for Plinth's own sockets. */
  meta?: unknown;
}

export interface ChannelMemberRow extends MemberRow {
  channel: string;
}

/** Records this server as alive at `now`; true when its row was missing (new, or swept as dead). */
export async function heartbeat(db: Queryable, serverId: string, now: Date): Promise<boolean> {
  const [row] = await db<{ inserted: boolean }[]>`
    insert into realtime.servers (id, heartbeat_at) values (${serverId}, ${now})
    on conflict (id) do update set heartbeat_at = excluded.heartbeat_at
    returning (xmax = 0) as inserted`;
  return row?.inserted ?? false;
}

/** Marks a server dead at once (graceful stop): the next sweep drops its members. */
export async function retireServer(db: Queryable, serverId: string): Promise<void> {
  await db`update realtime.servers set heartbeat_at = '-infinity' where id = ${serverId}`;
}

/** Serialises joins and leaves of one member of one channel across servers (until commit). */
export async function lockMember(db: Queryable, channel: string, presenceId: string): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtextextended(${`realtime\u0001${channel}\u0001${presenceId}`}, 0))`;
}

/** True when the member has a socket in the channel on a live server. */
export async function memberPresent(db: Queryable, channel: string, presenceId: string, liveAfter: Date) {
  const rows = await db`
    select 1 from realtime.presence p join realtime.servers s on s.id = p.server_id
    where p.channel_name = ${channel} and p.presence_id = ${presenceId} and s.heartbeat_at > ${liveAfter}
    limit 1`;
  return rows.length > 0;
}

export async function insertPresence(
  db: Queryable,
  row: { channel: string; socketId: string; serverId: string; member: MemberRow },
): Promise<void> {
  await db`
    insert into realtime.presence (channel_name, socket_id, server_id, presence_id, member_type, joined_at, meta)
    values (${row.channel}, ${row.socketId}, ${row.serverId}, ${row.member.presenceId}, ${row.member.type},
      ${row.member.joinedAt}, ${row.member.meta === undefined || row.member.meta === null ? null : JSON.stringify(row.member.meta)}::text::jsonb)
    on conflict (channel_name, socket_id) do nothing`;
}

/** Removes one socket from a channel; the member it stood for, if it was there. */
export async function deletePresence(db: Queryable, channel: string, socketId: string): Promise<MemberRow | undefined> {
  const [row] = await db<MemberRow[]>`
    delete from realtime.presence where channel_name = ${channel} and socket_id = ${socketId}
    returning member_type as type, presence_id as "presenceId", joined_at as "joinedAt", meta`;
  return row;
}

/** A channel's members on live servers, earliest first, each with its first socket's join time. */
export function channelMembers(db: Queryable, channel: string, liveAfter: Date): Promise<MemberRow[]> {
  return db<MemberRow[]>`
    select p.member_type as type, p.presence_id as "presenceId", min(p.joined_at) as "joinedAt",
      (array_agg(p.meta order by p.seq))[1] as meta
    from realtime.presence p join realtime.servers s on s.id = p.server_id
    where p.channel_name = ${channel} and s.heartbeat_at > ${liveAfter}
    group by p.presence_id, p.member_type
    order by min(p.seq)`;
}

/**
 * Drops the rows of servers not heard from since `liveAfter` (and those servers); returns the
 * members that thereby left their channel (no socket left on a live server). Concurrent sweeps
 * wait on the same rows, so each member's departure is reported once.
 */
export function sweepDeadServers(db: Queryable, liveAfter: Date): Promise<ChannelMemberRow[]> {
  return db<ChannelMemberRow[]>`
    with gone as (
      delete from realtime.presence p
      where not exists (select 1 from realtime.servers s where s.id = p.server_id and s.heartbeat_at > ${liveAfter})
      returning channel_name, presence_id, member_type, joined_at, meta
    ), dead as (
      delete from realtime.servers where heartbeat_at <= ${liveAfter}
    )
    select g.channel_name as channel, g.member_type as type, g.presence_id as "presenceId",
      min(g.joined_at) as "joinedAt", (array_agg(g.meta))[1] as meta
    from gone g
    where not exists (
      select 1 from realtime.presence p join realtime.servers s on s.id = p.server_id
      where p.channel_name = g.channel_name and p.presence_id = g.presence_id and s.heartbeat_at > ${liveAfter})
    group by g.channel_name, g.presence_id, g.member_type`;
}
