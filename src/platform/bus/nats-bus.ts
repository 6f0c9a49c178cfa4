// The bus on NATS: a subject is `<prefix>.<topic>`. Durable topics (messages and row changes) go
// through a JetStream stream (`<prefix>_bus`, file storage, bounded by age and size): each server
// reads it with an ordered consumer from the moment it subscribed, which resumes where it stopped
// after a lost connection, so nothing published meanwhile is missed. Other topics (presence) are
// core NATS subjects; after a reconnection every subscription's onConnected runs.
import {
  connect,
  DeliverPolicy,
  DiscardPolicy,
  Events,
  nanos,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  StringCodec,
} from 'nats';
import { type Bus, type BusTopic, bufferedPublisher } from './bus.js';
import type { BrokerBusOptions } from './redis-bus.js';

/** How long, and how many bytes of, durable events the stream keeps (readers resume within it). */
const STREAM_MAX_AGE_MS = 10 * 60_000;
const STREAM_MAX_BYTES = 256 * 1024 * 1024;

function connectOptions(url: string) {
  const parsed = new URL(url);
  const user = parsed.username ? decodeURIComponent(parsed.username) : undefined;
  const pass = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  return {
    servers: `${parsed.hostname}:${parsed.port || '4222'}`,
    ...(user && pass ? { user, pass } : user ? { token: user } : {}),
    name: 'plinth',
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: false,
  };
}

async function ensureStream(nc: NatsConnection, name: string, subjects: string[]) {
  const jsm = await nc.jetstreamManager();
  const config = {
    name,
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(STREAM_MAX_AGE_MS),
    max_bytes: STREAM_MAX_BYTES,
  };
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, config);
  } catch {
    await jsm.streams.add(config);
  }
}

export async function createNatsBus(options: BrokerBusOptions): Promise<Bus> {
  const nc = await connect(connectOptions(options.url));
  const codec = StringCodec();
  const streamName = `${options.prefix}_bus`;
  const subjectOf = (topic: BusTopic) =>
    topic.durable ? `${options.prefix}.durable.${topic.name}` : `${options.prefix}.${topic.name}`;
  await ensureStream(nc, streamName, [`${options.prefix}.durable.>`]);
  const js = nc.jetstream();
  const reconnected = new Set<() => void>();
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Reconnect) for (const run of reconnected) run();
    }
  })().catch(options.onError);

  const bus: Bus = {
    engine: 'nats',
    async publish(topic, payloads) {
      const subject = subjectOf(topic);
      if (!topic.durable) {
        for (const payload of payloads) nc.publish(subject, codec.encode(payload));
        return;
      }
      // Written in order on the one connection; each acknowledged once stored.
      await Promise.all(payloads.map((payload) => js.publish(subject, codec.encode(payload))));
    },
    async subscribe(topic, handler, onConnected) {
      const subject = subjectOf(topic);
      const deliver = (data: Uint8Array) => {
        try {
          handler(codec.decode(data));
        } catch (err) {
          options.onError(err);
        }
      };
      let stop: () => Promise<void>;
      if (topic.durable) {
        const consumer = await js.consumers.get(streamName, {
          filterSubjects: subject,
          deliver_policy: DeliverPolicy.New,
        });
        const messages = await consumer.consume({ callback: (m) => deliver(m.data) });
        stop = async () => void (await messages.close());
      } else {
        const subscription = nc.subscribe(subject, {
          callback: (err, m) => (err ? options.onError(err) : deliver(m.data)),
        });
        // The subscription is known to the server once a round trip has gone by.
        await nc.flush();
        stop = async () => subscription.unsubscribe();
      }
      const run = () => onConnected?.();
      reconnected.add(run);
      onConnected?.();
      return {
        async close() {
          reconnected.delete(run);
          await stop();
        },
      };
    },
    transactional: () => bufferedPublisher(bus),
    async close() {
      await nc.drain().catch(() => nc.close());
    },
  };
  return bus;
}
