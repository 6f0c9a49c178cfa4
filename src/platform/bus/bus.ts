// The realtime bus: how one server tells every server (itself included) about realtime events —
// messages and row changes, presence — by topic. PostgreSQL NOTIFY by default; a broker (NATS,
// Redis) when REALTIME_BUS_URL is set. Payloads are text, each topic keeps its publish order.

/** A topic and whether its events must survive a lost broker connection (NATS: JetStream). */
export interface BusTopic {
  name: string;
  durable?: boolean;
}

export type BusHandler = (payload: string) => void;

export interface BusSubscription {
  close(): Promise<void>;
}

export interface Bus {
  readonly engine: 'postgres' | 'nats' | 'redis';
  /**
   * Sends the payloads, in order, to every server subscribed to the topic. The PostgreSQL engine
   * sends a NOTIFY on the pool (delivered at once); a broker engine sends them to the broker.
   */
  publish(topic: BusTopic, payloads: string[]): Promise<void>;
  /**
   * Calls `handler` with each payload published on the topic, in publish order. `onConnected`
   * runs whenever the subscription is established: the first time, and after every reconnection
   * (events published while it was down may be lost on a non-durable topic: read back what matters).
   */
  subscribe(topic: BusTopic, handler: BusHandler, onConnected?: () => void): Promise<BusSubscription>;
  /**
   * Publishes that belong to a database transaction: on PostgreSQL a NOTIFY inside the
   * transaction (sent at its commit, atomically with it); on a broker, buffered until `flush()`,
   * which the caller runs after the commit (never for a transaction that rolled back).
   */
  transactional(): TransactionalPublisher;
  close(): Promise<void>;
}

/** A transaction's publishes (see Bus.transactional). */
export interface TransactionalPublisher {
  add(tx: import('../../core/db.js').Queryable, topic: BusTopic, payloads: string[]): Promise<void>;
  flush(): Promise<void>;
}

/** Buffers a transaction's publishes until flush (the broker engines' TransactionalPublisher). */
export function bufferedPublisher(bus: Pick<Bus, 'publish'>): TransactionalPublisher {
  const queued: { topic: BusTopic; payloads: string[] }[] = [];
  return {
    async add(_tx, topic, payloads) {
      if (payloads.length > 0) queued.push({ topic, payloads });
    },
    async flush() {
      for (const { topic, payloads } of queued.splice(0)) await bus.publish(topic, payloads);
    },
  };
}
