// Delivery of published messages on this server: every server LISTENs for the messages announced
// on commit (realtime_message) and emits each, in announcement order, to its own sockets in the
// channel's room: straight from the notification when it carries the whole message, else read back
// by id (in batches); the audience it reached is added to the message's row, off the delivery path.
// After a lost LISTEN connection the messages since the last one seen are read back (each id is
// delivered once: recent ids are remembered). A row change of a watched table reaches only the
// sockets that may SELECT the row, with only the columns they may read (row-changes.ts; the changes
// announced together are judged before any is emitted, those of one table together). A socket that does not read (its unsent backlog past a bound for longer than a grace period,
// on the injected clock) is cut, so it holds up no one and its buffer stays bounded.
import type { Server, Socket } from 'socket.io';
import type { Deps } from '../../deps.js';
import { createAudienceCounter } from './audience-counter.js';
import {
  type Announcement,
  databaseNow,
  type DeliverableMessage,
  deliverableMessages,
  messageIdsSince,
  readAnnouncement,
} from './delivery.repo.js';
import { createReadableColumns, type ReadableColumns } from './readable-columns.js';
import { emitJudged, judgeInRoom, type RoomJudgement, type RowChange } from './row-changes.js';
import type { ReadNow } from './row-visibility.repo.js';

export const roomOf = (channel: string) => `realtime:${channel}`;

/** Another transport's sockets (Supabase's Phoenix protocol) fed by this same delivery. */
export interface DeliverySink {
  /** Whether any of its sockets on this server listens on the channel. */
  wants(channel: string): boolean;
  /** Delivers one message to its sockets; how many it reached. */
  deliver(message: DeliverableMessage, readable: ReadableColumns): Promise<number>;
}

/** Unsent packets (queued while the WebSocket's previous writes are pending) a socket may have. */
const MAX_BACKLOG_PACKETS = 1_000;
/** Unsent bytes (those packets, plus the WebSocket's own buffer) a socket may have. */
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;
/** Recently announced ids remembered, so a message read back after a reconnect is not sent twice. */
const RECENT_IDS = 10_000;
/** How long a backlog may stay past the bound (a burst drains within it; a stalled reader does not). */
const BACKLOG_GRACE_MS = 5_000;

interface EngineConnection {
  writeBuffer: { data?: string | ArrayBufferLike | ArrayBufferView }[];
  transport: { socket?: { bufferedAmount?: number; terminate?: () => void } };
  close(discard?: boolean): void;
}

function backlogBytes(conn: EngineConnection): number {
  let bytes = conn.transport.socket?.bufferedAmount ?? 0;
  for (const packet of conn.writeBuffer) {
    const data = packet.data;
    bytes += typeof data === 'string' ? data.length : (data?.byteLength ?? 0);
    if (bytes > MAX_BACKLOG_BYTES) break;
  }
  return bytes;
}

/**
 * Checks a socket after a delivery: a backlog past the bound is remembered with the time it was
 * first seen (on the socket), cleared once it drains, and cut when it outlived the grace period.
 * True when the socket was cut (its client reconnects later).
 */
function cutIfTooSlow(socket: Socket, now: number): boolean {
  const conn = socket.conn as unknown as EngineConnection;
  const data = socket.data as { backlogSince?: number };
  if (conn.writeBuffer.length <= MAX_BACKLOG_PACKETS && backlogBytes(conn) <= MAX_BACKLOG_BYTES) {
    data.backlogSince = undefined;
    return false;
  }
  data.backlogSince ??= now;
  if (now - data.backlogSince <= BACKLOG_GRACE_MS) return false;
  const ws = conn.transport.socket;
  if (ws?.terminate) ws.terminate();
  else conn.close(true);
  return true;
}

/**
 * The event's argument: the payload with `meta` added (a payload key `meta` is replaced).
 * `meta.channel` is the channel name as subscribed, as in presence events (which the client matches
 * against its subscriptions): the reference platform sends its room name (`realtime:` + name) here.
 */
function eventBody(message: DeliverableMessage, timestamp: string, payloadOverride?: Record<string, unknown>) {
  const meta: Record<string, string> = {
    channel: message.channelName,
    messageId: message.id,
    senderType: message.senderType,
    timestamp,
  };
  if (message.senderId !== null) meta.senderId = message.senderId;
  const stored = typeof message.payload === 'object' && message.payload !== null ? message.payload : {};
  const payload = payloadOverride ?? stored;
  return { ...payload, meta };
}

export function createDelivery(
  deps: Pick<Deps, 'sql' | 'clock' | 'replicas'>,
  io: Server,
  onError: (err: unknown) => void,
  onSlowConsumer: (socketId: string) => void,
  sinks: DeliverySink[] = [],
) {
  let pending: Announcement[] = [];
  let draining = false;
  const recent = new Set<string>();
  /** The newest creation time delivered, or when listening began: where a read-back starts. */
  let seenUntil: Date | undefined;
  const audience = createAudienceCounter(deps.sql, onError);
  const readable = createReadableColumns(deps.sql);
  // The check of a row as it is now may run on a read replica that has replayed the change.
  const readNow: ReadNow = (work) => deps.replicas.read('primary', work);

  /** The announced messages in order, those announced by id only read back (one query). */
  const readBack = async (announced: Announcement[]): Promise<DeliverableMessage[]> => {
    const missing = announced.filter((a) => !a.message).map((a) => a.id);
    const loaded = new Map((await deliverableMessages(deps.sql, missing)).map((m) => [m.id, m]));
    return announced.flatMap((a) => a.message ?? loaded.get(a.id) ?? []);
  };

  const rowChangeOf = (message: DeliverableMessage): RowChange => ({
    table: message.rowTable as string,
    key: message.rowKey as Record<string, unknown>,
    eventName: message.eventName,
    payload: message.payload as RowChange['payload'],
  });

  /**
   * Every row change that some socket here listens to, judged before any message is emitted:
   * those of one room (one table) together. A judgement that fails reaches no one (reported).
   */
  const judgeAnnounced = async (messages: DeliverableMessage[]) => {
    const byRoom = new Map<string, DeliverableMessage[]>();
    for (const message of messages) {
      if (message.rowTable === null || message.rowKey === null) continue;
      const room = roomOf(message.channelName);
      if (!io.of('/').adapter.rooms.get(room)?.size) continue;
      const key = `${room}\u0000${message.rowTable}`;
      const list = byRoom.get(key) ?? [];
      list.push(message);
      byRoom.set(key, list);
    }
    const judged = new Map<
      DeliverableMessage,
      { groups: RoomJudgement['groups']; shown: RoomJudgement['shown'][number] }
    >();
    for (const list of byRoom.values()) {
      const room = roomOf(list[0]!.channelName);
      try {
        const { groups, shown } = await judgeInRoom(deps.sql, readable, io, room, list.map(rowChangeOf), readNow);
        for (const [i, message] of list.entries()) judged.set(message, { groups, shown: shown[i]! });
      } catch (err) {
        onError(err);
      }
    }
    return judged;
  };

  const deliver = async (announced: Announcement[]) => {
    // Awaited only when something has to be read back: a whole message is emitted in this tick.
    const messages = announced.every((a) => a.message)
      ? announced.map((a) => a.message as DeliverableMessage)
      : await readBack(announced);
    for (const message of messages) if (!seenUntil || message.createdAt > seenUntil) seenUntil = message.createdAt;
    const counts: { id: string; sockets: number }[] = [];
    const rooms = new Set<string>();
    const judged = await judgeAnnounced(messages);
    const timestamp = deps.clock.now().toISOString();
    for (const message of messages) {
      const room = roomOf(message.channelName);
      const sockets = io.of('/').adapter.rooms.get(room)?.size ?? 0;
      let reached = 0;
      const judgement = judged.get(message);
      if (message.rowTable !== null && message.rowKey !== null) {
        if (judgement)
          reached = emitJudged(io, judgement.groups, judgement.shown, message.eventName, (payload) =>
            eventBody(message, timestamp, payload),
          );
      } else if (sockets > 0) {
        try {
          io.local.to(room).emit(message.eventName, eventBody(message, timestamp));
          reached = sockets;
        } catch (err) {
          onError(err); // a reserved event name (connect, disconnect, …) cannot be emitted
        }
      }
      if (reached > 0) rooms.add(room);
      // The other transports (Supabase's Phoenix sockets) get the same message from this engine.
      for (const sink of sinks) {
        if (!sink.wants(message.channelName)) continue;
        reached += await sink.deliver(message, readable).catch((err) => {
          onError(err);
          return 0;
        });
      }
      if (reached > 0) counts.push({ id: message.id, sockets: reached });
    }
    for (const room of rooms) {
      for (const id of io.of('/').adapter.rooms.get(room) ?? []) {
        const socket = io.of('/').sockets.get(id);
        if (socket && cutIfTooSlow(socket, deps.clock.now().getTime())) onSlowConsumer(socket.id);
      }
    }
    audience.add(counts);
  };

  const drain = async () => {
    draining = true;
    try {
      while (pending.length > 0) {
        const announced = pending;
        pending = [];
        await deliver(announced).catch(onError);
      }
    } finally {
      draining = false;
    }
  };

  const announce = (announcement: Announcement) => {
    const { id } = announcement;
    if (recent.has(id)) return;
    recent.add(id);
    if (recent.size > RECENT_IDS) recent.delete(recent.values().next().value as string);
    pending.push(announcement);
    if (!draining) void drain();
  };

  return {
    /** A NOTIFY of realtime_message: the whole message, or its id (one not written by the trigger is reported). */
    announce(text: string): void {
      let announcement: Announcement;
      try {
        announcement = readAnnouncement(text);
      } catch (err) {
        onError(err);
        return;
      }
      announce(announcement);
    },
    /** Writes the audience counts not written yet (a stop). */
    flush: () => audience.flush(),
    /** The LISTEN connection is (again) up: the first time, notes the time; later, reads back what was missed. */
    async listening(): Promise<void> {
      if (!seenUntil) {
        seenUntil = await databaseNow(deps.sql);
        return;
      }
      for (const id of await messageIdsSince(deps.sql, seenUntil)) announce({ id });
    },
  };
}
