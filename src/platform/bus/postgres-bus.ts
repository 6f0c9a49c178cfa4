// The bus on PostgreSQL (the default): NOTIFY to publish, LISTEN to subscribe, as Plinth always did.
// A notification holds at most 8000 bytes; callers that may exceed it send an id to read back.
import type { Queryable, Sql } from '../../core/db.js';
import type { Bus, BusTopic } from './bus.js';
import { notifyAll } from './notify.repo.js';

const notify = (db: Queryable, topic: BusTopic, payloads: string[]) => notifyAll(db, topic.name, payloads);

/** `listenSql`: the connection LISTEN runs on (a direct one when the pool goes through a pooler). */
export function createPostgresBus(sql: Sql, listenSql: Sql = sql): Bus {
  return {
    engine: 'postgres',
    publish: (topic, payloads) => notify(sql, topic, payloads),
    async subscribe(topic, handler, onConnected) {
      const listening = await listenSql.listen(topic.name, handler, onConnected);
      return { close: () => listening.unlisten() };
    },
    transactional: () => ({ add: notify, flush: async () => {} }),
    async close() {},
  };
}
