// A COPY ... TO STDOUT whose last rows fill the stream's buffer must leave its connection reading:
// postgres.js pauses the socket when a push finds the buffer full and resumes it only from the
// stream's read(), which an ended stream never calls again, so the connection's next query was
// never answered (patches/postgres+3.4.9+007+copy-to-resumes-socket.patch; backups dump every
// table this way on one connection).
import type { Readable } from 'node:stream';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createDatabase } from '../../harness/test-app.js';

let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres(await createDatabase(), { max: 1, onnotice: () => {} });
  // One row larger than a stream's default buffer (16 KiB): its push finds the buffer full.
  await sql`create table wide as select repeat('x', 64 * 1024) as body`;
});
afterAll(() => sql.end({ timeout: 1 }));

/** The answer, or a failure naming the hang (a paused connection answers nothing, ever). */
const answered = <T>(work: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the connection stayed paused')), ms)),
  ]);

it('the next query on the connection is answered after a copy whose last row filled the buffer', async () => {
  const conn = await sql.reserve();
  try {
    const rows: Readable = await conn`copy wide (body) to stdout`.readable();
    // Read only once the whole row sits in the buffer: the push that put it there paused the socket.
    await vi.waitFor(() => expect(rows.readableLength).toBe(64 * 1024 + 1), { timeout: 5_000, interval: 10 });
    let bytes = 0;
    for await (const chunk of rows) bytes += (chunk as Buffer).length;
    expect(bytes).toBe(64 * 1024 + 1);
    expect(await answered(conn`select 1 as n`, 5_000)).toEqual([{ n: 1 }]);
  } finally {
    conn.release();
  }
});
