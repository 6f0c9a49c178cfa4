// The realtime module's topics on the bus (platform/bus): messages and row changes (durable on a
// broker: NATS keeps them in JetStream), and presence events. A publisher of messages outside
// the socket server (change capture) calls announceMessages with the JSON the delivery reads.
import type { Bus, BusTopic } from '../../platform/bus/index.js';
import { MESSAGE_CHANNEL } from './delivery.repo.js';
import { PRESENCE_CHANNEL } from './presence.repo.js';

export const MESSAGE_TOPIC: BusTopic = { name: MESSAGE_CHANNEL, durable: true };
export const PRESENCE_TOPIC: BusTopic = { name: PRESENCE_CHANNEL };

/** Past this, a message is announced by its id alone and read back (PostgreSQL: 8000 bytes). */
const BROKER_INLINE_BYTES = 512 * 1024;
const NOTIFY_INLINE_BYTES = 8_000;

/**
 * Announces committed messages to every server, in order: each as the JSON of a DeliverableMessage
 * (what realtime.notify_message() writes: id, eventName, channelName, payload, senderType,
 * senderId, createdAt, rowTable, rowKey), or by id when too big for the bus to carry.
 */
export async function announceMessages(bus: Bus, messages: string[]): Promise<void> {
  if (messages.length === 0) return;
  const limit = bus.engine === 'postgres' ? NOTIFY_INLINE_BYTES : BROKER_INLINE_BYTES;
  await bus.publish(
    MESSAGE_TOPIC,
    messages.map((json) => (Buffer.byteLength(json) < limit ? json : (JSON.parse(json) as { id: string }).id)),
  );
}
