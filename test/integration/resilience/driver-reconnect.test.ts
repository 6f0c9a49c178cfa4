// postgres.js, as the install step patches it, when the database goes away and comes back: a
// reserve() that failed while it was away (its connection refused) never takes the connection that
// opens later, so what was queued behind it is answered once the database is back. Before the
// patch the new connection went to the failed reserve() and was never seen again: the log
// writer's COPYs waited on it forever, and the server could not close.
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { reconnectBackoff } from '../../../src/core/db.js';
import { startDatabaseRelay } from '../../harness/tcp-relay.js';
import { createDatabase } from '../../harness/test-app.js';

it('answers the query queued behind a reserve() that failed while the database was away', {
  timeout: 10_000,
}, async () => {
  const relay = await startDatabaseRelay(await createDatabase('empty'));
  let closed!: () => void;
  const connectionClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const pool = postgres(relay.databaseUrl, {
    max: 1,
    onnotice: () => {},
    backoff: reconnectBackoff,
    onclose: () => closed(),
  });
  try {
    await pool`select 1`;
    await relay.refuse();
    await connectionClosed;

    const reserving = pool.reserve();
    const queued = pool`select 2 as n`;
    await expect(reserving).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await relay.accept();
    expect([...(await queued)]).toEqual([{ n: 2 }]);
    const reserved = await pool.reserve();
    expect([...(await reserved`select 3 as n`)]).toEqual([{ n: 3 }]);
    reserved.release();
  } finally {
    await pool.end({ timeout: 0 });
    await relay.close();
  }
});
