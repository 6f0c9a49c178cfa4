// The bus on Redis pub/sub (ioredis): one connection publishes, one subscribes. A channel is
// `<prefix>:<topic>`. Pub/sub keeps no history: after a reconnection every subscription's
// onConnected runs so its owner reads back from PostgreSQL what it may have missed.
import { Redis } from 'ioredis';
import { type Bus, type BusHandler, bufferedPublisher } from './bus.js';

export interface BrokerBusOptions {
  url: string;
  prefix: string;
  onError(err: unknown): void;
}

export async function createRedisBus(options: BrokerBusOptions): Promise<Bus> {
  const retry = { retryStrategy: (times: number) => Math.min(50 * 2 ** times, 1_000), maxRetriesPerRequest: null };
  const pub = new Redis(options.url, { ...retry, lazyConnect: true, connectionName: 'plinth-bus-pub' });
  const sub = new Redis(options.url, { ...retry, lazyConnect: true, connectionName: 'plinth-bus-sub' });
  for (const client of [pub, sub]) client.on('error', (err) => options.onError(err));
  await Promise.all([pub.connect(), sub.connect()]);
  const channelOf = (topic: string) => `${options.prefix}:${topic}`;
  const subscriptions = new Map<string, Set<{ handler: BusHandler; onConnected?: () => void }>>();
  sub.on('message', (channel: string, message: string) => {
    for (const s of subscriptions.get(channel) ?? []) s.handler(message);
  });
  // Attached after the first connection: every 'ready' from now on is a reconnection.
  sub.on('ready', () => {
    // ioredis subscribes again by itself; subscribing once more (idempotent) orders the read-backs after it.
    const channels = [...subscriptions.keys()];
    if (channels.length === 0) return;
    sub.subscribe(...channels).then(
      () => {
        for (const set of subscriptions.values()) for (const s of set) s.onConnected?.();
      },
      (err) => options.onError(err),
    );
  });

  const bus: Bus = {
    engine: 'redis',
    async publish(topic, payloads) {
      if (payloads.length === 0) return;
      const channel = channelOf(topic.name);
      const multi = pub.pipeline();
      for (const payload of payloads) multi.publish(channel, payload);
      await multi.exec();
    },
    async subscribe(topic, handler, onConnected) {
      const channel = channelOf(topic.name);
      const set = subscriptions.get(channel) ?? new Set();
      subscriptions.set(channel, set);
      const entry = { handler, onConnected };
      set.add(entry);
      await sub.subscribe(channel);
      onConnected?.();
      return {
        async close() {
          set.delete(entry);
          if (set.size > 0) return;
          subscriptions.delete(channel);
          await sub.unsubscribe(channel).catch(() => {});
        },
      };
    },
    transactional: () => bufferedPublisher(bus),
    async close() {
      pub.disconnect();
      sub.disconnect();
    },
  };
  return bus;
}
