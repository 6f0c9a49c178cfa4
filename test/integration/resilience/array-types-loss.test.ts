// A connection lost while postgres.js fetches the array types (the first query on every new
// connection) must not leave a rejection nobody handles: the driver started the fetch without
// awaiting it, so the loss (`read ECONNRESET`) ended the process. It killed the server twice in 20
// termination rounds on the embedded database (bench/README.md, "Fault runs"). The query that
// opened the connection fails with the loss, and the next one is answered on a new connection
// (patches/postgres+3.4.9+004+array-types-loss-handled.patch).
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDatabaseRelay } from '../../harness/tcp-relay.js';
import { createDatabase } from '../../harness/test-app.js';
import { oneLoopTurn, watchUnhandledRejections } from '../../harness/unhandled-rejections.js';

let url: string;
let observer: postgres.Sql;
beforeAll(async () => {
  url = await createDatabase('empty');
  observer = postgres(url, { max: 1, onnotice: () => {} });
});
afterAll(() => observer.end({ timeout: 1 }));

it('a connection lost during its array-types fetch fails its first query and ends nothing', async () => {
  const relay = await startDatabaseRelay(url);
  const pool = postgres(relay.databaseUrl, { max: 1, onnotice: () => {}, backoff: () => 0 });
  const unhandled = watchUnhandledRejections();
  try {
    // The types query reaches PostgreSQL, its answer never reaches the driver.
    relay.delayRepliesAfter('typcategory', 60_000);
    const first = pool`select 1 as n`.execute();
    await expect
      .poll(
        async () =>
          (
            await observer`select count(*)::int as n from pg_stat_activity
                            where datname = current_database() and pid <> pg_backend_pid()
                              and query like '%typcategory%' and state = 'idle'`
          )[0]!.n,
      )
      .toBe(1);
    relay.delayReplies(0);
    await relay.resetClients();
    await expect(first).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect([...(await pool`select 2 as n`)]).toEqual([{ n: 2 }]);
    await oneLoopTurn();
    expect(unhandled.reasons).toEqual([]);
  } finally {
    unhandled.stop();
    await pool.end({ timeout: 0 });
    await relay.close();
  }
});
