// A socket that closes while a query's bytes wait for their flush (postgres.js batches small
// writes into one setImmediate) must not take the next connection down with it. The driver left
// the cancelled flush timer's handle and the unsent bytes behind, so the reconnected socket's
// startup message joined the dead socket's bytes and waited for a flush that was never scheduled:
// the connection hung until its connect timeout. And a query handed to a connection whose socket
// is gone (a transaction's code going on after the loss) must fail: it was queued for a flush that
// threw from its timer (uncatchable, the process died) and never settled
// (patches/postgres+3.4.9+001+socket-closed-under-write.patch).
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase } from '../../harness/test-app.js';
import { oneLoopTurn } from '../../harness/unhandled-rejections.js';

let url: URL;
beforeAll(async () => {
  url = new URL(await createDatabase('empty'));
});

/** The answer, or a failure naming the hang (nothing else would ever answer it). */
const answered = <T>(work: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), ms).unref())]);

const sockets: Socket[] = [];
afterAll(() => {
  for (const socket of sockets) socket.destroy();
});

/** A pool of one connection over sockets the test holds, closed by the test when it chooses. */
function poolOnOwnSockets(): { pool: postgres.Sql; socket(): Socket } {
  let current: Socket | undefined;
  // `socket` is documented (README, "Custom socket") but missing from the driver's types.
  const options: postgres.Options<Record<string, postgres.PostgresType>> & { socket(): Promise<Socket> } = {
    max: 1,
    onnotice: () => {},
    // The driver's own option for the socket it talks over: the test can close it at the moment
    // it chooses (a connection reset, as a terminated backend or a network cut gives).
    socket: () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname);
        sockets.push(socket);
        socket.once('connect', () => resolve(socket)).once('error', reject);
        current = socket;
      }),
    // Called as each query is built, just before its bytes are queued for the flush: the socket
    // closes right there, before the flush runs.
    debug: (_connection: number, text: string) => {
      if (text.includes('closes under its write')) current!.destroy();
    },
  };
  return { pool: postgres(url.toString(), options), socket: () => current! };
}

it('the query after a socket closed with a write pending is answered on a new connection', async () => {
  const { pool } = poolOnOwnSockets();
  try {
    expect([...(await pool`select 1 as n`)]).toEqual([{ n: 1 }]);
    // Issued from an immediate (a check-phase callback, as the driver's own flush is): its flush
    // is due in the loop's next turn, and the socket's close comes in this one, first.
    const { doomed } = await new Promise<{ doomed: Promise<unknown> }>((resolve) =>
      setImmediate(() => resolve({ doomed: pool`select 'closes under its write' as n`.execute() })),
    );
    await expect(doomed).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    const next = await answered(pool`select 2 as n`, 5_000, 'the next connection hung: its startup was never flushed');
    expect([...next]).toEqual([{ n: 2 }]);
  } finally {
    await pool.end({ timeout: 0 });
  }
});

it('a query in a transaction whose connection closed fails, and nothing throws from a timer', async () => {
  const { pool, socket } = poolOnOwnSockets();
  const thrown: unknown[] = [];
  const remember = (err: unknown) => thrown.push(err);
  process.on('uncaughtException', remember);
  try {
    let after: Promise<unknown> | undefined;
    const transaction = pool.begin(async (tx) => {
      await tx`select 1`;
      const closed = once(socket(), 'close');
      socket().destroy();
      await closed;
      // The transaction's code goes on after its connection is gone (it has not seen the loss yet).
      after = tx`select 2`.execute();
      await after;
    });
    await expect(transaction).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await expect(answered(after!, 5_000, 'the query on the closed connection never settled')).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
    await oneLoopTurn();
    expect(thrown).toEqual([]);
  } finally {
    process.off('uncaughtException', remember);
    await pool.end({ timeout: 0 });
  }
});
