// A reserve() waiting for a busy connection that is then lost must get the connection the driver
// opens in its place. postgres.js hands the lost connection's next waiting request to the new
// connection as its first. For a reserve() it dropped that request once the connection was ready,
// with or without the array-types fetch, so the caller waited forever (Plinth's requests and the
// log writer's COPYs reserve their connection)
// (patches/postgres+3.4.9+003+reserve-gets-new-connection.patch, with the mark that
// patches/postgres+3.4.9+008+failed-reserve-skipped.patch puts on a request taken from the queue).
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDatabaseRelay } from '../../harness/tcp-relay.js';
import { createDatabase } from '../../harness/test-app.js';

let url: string;
let blocker: postgres.Sql;
beforeAll(async () => {
  url = await createDatabase('empty');
  // Two connections: one holds the lock, the other watches who waits for it.
  blocker = postgres(url, { max: 2, onnotice: () => {} });
});
afterAll(() => blocker.end({ timeout: 1 }));

/** The answer, or a failure naming the hang (nothing else would ever settle it). */
const settled = <T>(work: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), ms).unref())]);

it.each([
  { fetchTypes: true, what: 'after fetching the array types (the default)' },
  { fetchTypes: false, what: 'without the array types' },
])('a reserve() queued behind a lost connection gets the new one, $what', async ({ fetchTypes }) => {
  const relay = await startDatabaseRelay(url);
  const pool = postgres(relay.databaseUrl, { max: 1, onnotice: () => {}, backoff: () => 0, fetch_types: fetchTypes });
  const lock = 4_039_001;
  const held = await blocker.reserve();
  try {
    await held`select pg_advisory_lock(${lock})`;
    // The pool's one connection waits for the lock; a reserve() queues behind it.
    const waiting = pool`select pg_advisory_lock(${lock})`.execute();
    await expect
      .poll(
        async () =>
          (await blocker`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`)[0]!.n,
      )
      .toBe(1);
    const reserving = pool.reserve();
    // The connection is lost (a terminated backend, a network cut): the running query fails, and
    // the driver opens a new connection for the reserve().
    await relay.resetClients();
    await expect(waiting).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|CONNECTION_CLOSED/) });
    const reserved = await settled(reserving, 5_000, 'the reserve() was never settled');
    expect([...(await reserved`select 1 as n`)]).toEqual([{ n: 1 }]);
    reserved.release();
    expect([...(await pool`select 2 as n`)]).toEqual([{ n: 2 }]);
  } finally {
    await held`select pg_advisory_unlock_all()`;
    held.release();
    await pool.end({ timeout: 0 });
    await relay.close();
  }
});
