// Delivery of published messages on this server: every server LISTENs for the ids announced on
// commit (realtime_message), loads them in batches, in announcement order, and emits each to
// its own sockets in the channel's room; the audience it reached is added to the message's row.
import type { Server } from 'socket.io';
import type { Deps } from '../../deps.js';
import { addAudience, type DeliverableMessage, deliverableMessages } from './delivery.repo.js';

export const roomOf = (channel: string) => `realtime:${channel}`;

/** The event's argument: the payload with `meta` added (a payload key `meta` is replaced). */
function eventBody(message: DeliverableMessage, timestamp: string) {
  const meta: Record<string, string> = {
    channel: roomOf(message.channelName),
    messageId: message.id,
    senderType: message.senderType,
    timestamp,
  };
  if (message.senderId !== null) meta.senderId = message.senderId;
  const payload = typeof message.payload === 'object' && message.payload !== null ? message.payload : {};
  return { ...payload, meta };
}

export function createDelivery(deps: Pick<Deps, 'sql' | 'clock'>, io: Server, onError: (err: unknown) => void) {
  let pending: string[] = [];
  let draining = false;

  const deliver = async (ids: string[]) => {
    const messages = await deliverableMessages(deps.sql, ids);
    const counts: { id: string; sockets: number }[] = [];
    const timestamp = deps.clock.now().toISOString();
    for (const message of messages) {
      const room = roomOf(message.channelName);
      const sockets = io.of('/').adapter.rooms.get(room)?.size ?? 0;
      if (sockets === 0) continue;
      try {
        io.local.to(room).emit(message.eventName, eventBody(message, timestamp));
        counts.push({ id: message.id, sockets });
      } catch (err) {
        onError(err); // a reserved event name (connect, disconnect, …) cannot be emitted
      }
    }
    await addAudience(deps.sql, counts);
  };

  const drain = async () => {
    draining = true;
    try {
      while (pending.length > 0) {
        const ids = pending;
        pending = [];
        await deliver(ids).catch(onError);
      }
    } finally {
      draining = false;
    }
  };

  return {
    /** A message id announced by NOTIFY. */
    announce(id: string): void {
      pending.push(id);
      if (!draining) void drain();
    },
  };
}
