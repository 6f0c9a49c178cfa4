// The realtime bus chosen by the configuration: a broker when REALTIME_BUS_URL names one, else
// PostgreSQL NOTIFY/LISTEN on the given connections.
import type { Sql } from '../../core/db.js';
import type { Bus } from './bus.js';
import { createNatsBus } from './nats-bus.js';
import { createPostgresBus } from './postgres-bus.js';
import { createRedisBus } from './redis-bus.js';

export type { Bus, BusHandler, BusSubscription, BusTopic, TransactionalPublisher } from './bus.js';

export interface BusOptions {
  /** REALTIME_BUS_URL and REALTIME_BUS_PREFIX (undefined: PostgreSQL). */
  broker?: { url: string; prefix: string };
  sql: Sql;
  /** The connection LISTEN runs on (default: the pool). */
  listenSql?: Sql;
  onError(err: unknown): void;
}

export async function createBus(options: BusOptions): Promise<Bus> {
  const { broker } = options;
  if (!broker) return createPostgresBus(options.sql, options.listenSql);
  const brokerOptions = { url: broker.url, prefix: broker.prefix, onError: options.onError };
  return broker.url.startsWith('nats:') ? createNatsBus(brokerOptions) : createRedisBus(brokerOptions);
}
