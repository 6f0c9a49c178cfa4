// SQL of the PostgreSQL bus: NOTIFY of payloads on a channel, in their order.
import type { Queryable } from '../../core/db.js';

export async function notifyAll(db: Queryable, channel: string, payloads: string[]): Promise<void> {
  if (payloads.length === 0) return;
  await db`select pg_notify(${channel}, p) from unnest(${payloads}::text[]) with ordinality as t (p, n) order by n`;
}
