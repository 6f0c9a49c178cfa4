// SQL of message delivery: what a NOTIFY announces (the whole message as JSON when it fit in the
// notification, else its id), the announced messages read back by id whose channel is still
// enabled (in the order they were announced), the messages since a time (read back after a lost
// LISTEN connection), and the socket audience each server adds to a message's counter.
import type { Queryable } from '../../core/db.js';

export const MESSAGE_CHANNEL = 'realtime_message';

export interface DeliverableMessage {
  id: string;
  eventName: string;
  channelName: string;
  payload: unknown;
  senderType: 'system' | 'user';
  senderId: string | null;
  createdAt: Date;
  /** A row change of a watched table: the table (schema-qualified, quoted); null otherwise. */
  rowTable: string | null;
  /** The changed row's primary key values by column (row changes only). */
  rowKey: Record<string, unknown> | null;
}

/** A NOTIFY of realtime_message: the message itself, or only its id (too big for a notification). */
export interface Announcement {
  id: string;
  message?: DeliverableMessage;
}

/** Reads a notification written by realtime.notify_message(): JSON of the whole message, or an id. */
export function readAnnouncement(text: string): Announcement {
  if (!text.startsWith('{')) return { id: text };
  const message = JSON.parse(text) as Omit<DeliverableMessage, 'createdAt'> & { createdAt: string };
  return { id: message.id, message: { ...message, createdAt: new Date(message.createdAt) } };
}

export function deliverableMessages(db: Queryable, ids: string[]): Promise<DeliverableMessage[]> {
  return db<DeliverableMessage[]>`
    select m.id, m.event_name as "eventName", m.channel_name as "channelName", m.payload,
      m.sender_type as "senderType", m.sender_id as "senderId", m.created_at as "createdAt",
      quote_ident(rn.nspname) || '.' || quote_ident(rc.relname) as "rowTable", m.row_key as "rowKey"
    from unnest(${ids}::uuid[]) with ordinality as a (id, n)
    join realtime.messages m on m.id = a.id
    left join realtime.channels c on c.id = m.channel_id
    left join pg_class rc on rc.oid = m.row_table
    left join pg_namespace rn on rn.oid = rc.relnamespace
    where c.enabled or (m.channel_id is null and m.topic is not null) -- Supabase topics have no channel row
    order by a.n`;
}

export async function addAudience(db: Queryable, counts: { id: string; sockets: number }[]): Promise<void> {
  if (counts.length === 0) return;
  await db`
    update realtime.messages m set ws_audience_count = m.ws_audience_count + c.n
    from unnest(${counts.map((c) => c.id)}::uuid[], ${counts.map((c) => c.sockets)}::int[]) as c (id, n)
    where m.id = c.id`;
}

/** Messages created since `since` (less a margin for transactions that committed late), oldest first. */
export async function messageIdsSince(db: Queryable, since: Date): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    select id from realtime.messages where created_at >= ${since}::timestamptz - interval '5 seconds'
    order by created_at, id limit 10000`;
  return rows.map((row) => row.id);
}

export async function databaseNow(db: Queryable): Promise<Date> {
  const [row] = await db<{ now: Date }[]>`select now() as now`;
  return row?.now ?? new Date();
}
