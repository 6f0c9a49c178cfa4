// A connection that opens must reset postgres.js's reconnect back-off: each connection lost after a
// good one counts as the first failure again. The driver reset it only once a connection's first
// query ran; a connection opened for a reserve() (every request of Plinth's) fetched its array
// types and went to the reserve() without the reset, so each lost connection made the next
// reconnect wait longer, up to 20 s with the default back-off
// (patches/postgres+3.4.9+002+reconnect-backoff-reset.patch).
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { startDatabaseRelay } from '../../harness/tcp-relay.js';
import { createDatabase } from '../../harness/test-app.js';

it('each connection lost after a good one backs off as a first failure', async () => {
  const relay = await startDatabaseRelay(await createDatabase('empty'));
  /** The failure count the driver hands its `backoff` option at each lost connection. */
  const attempts: number[] = [];
  let closed: () => void = () => {};
  const pool = postgres(relay.databaseUrl, {
    max: 1,
    onnotice: () => {},
    backoff: (attempt: number) => {
      attempts.push(attempt);
      return 0;
    },
    onclose: () => closed(),
  });
  try {
    for (let round = 1; round <= 3; round++) {
      const reserved = await pool.reserve();
      expect([...(await reserved`select ${round}::int as round`)]).toEqual([{ round }]);
      reserved.release();
      const lost = new Promise<void>((resolve) => {
        closed = resolve;
      });
      await relay.resetClients();
      await lost;
    }
    expect(attempts).toEqual([1, 1, 1]);
  } finally {
    await pool.end({ timeout: 0 });
    await relay.close();
  }
});
