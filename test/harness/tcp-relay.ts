// A loopback TCP relay in front of a real server (PostgreSQL here) that can withhold or delay the
// server's replies, reset the client's connections, refuse new ones and accept them again: a
// connection lost mid-round-trip, or a database away and back, on demand, for the races a
// terminated backend only hits by chance.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  /** Resolves once a client has written to the relay since this call. */
  nextClientWrite(): Promise<void>;
  /** From now on the server's replies are dropped instead of forwarded. */
  withholdReplies(): void;
  /** From now on the server's replies reach the client `ms` later, in order (a slow network). */
  delayReplies(ms: number): void;
  /**
   * delayReplies(ms) from the first client write that contains `marker` (e.g. `commit`): a reply
   * lost after the server acted on the request, not before.
   */
  delayRepliesAfter(marker: string, ms: number): void;
  /** Resets every client connection (RST) and resolves when each has closed. */
  resetClients(): Promise<void>;
  /** The database goes away: new connections are refused and open ones reset. */
  refuse(): Promise<void>;
  /** The database is back: connections are accepted (and relayed) again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const clients = new Set<Socket>();
  let withholding = false;
  let replyDelayMs = 0;
  let onClientWrite: (() => void) | undefined;
  let delayAfter: { marker: string; ms: number } | undefined;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    clients.add(client);
    client.on('data', (chunk: Buffer) => {
      if (delayAfter && chunk.includes(delayAfter.marker)) {
        replyDelayMs = delayAfter.ms;
        delayAfter = undefined;
      }
      upstream.write(chunk);
      onClientWrite?.();
    });
    // Delayed replies wait in order: one that comes after the delay is lifted still goes after them.
    const delayed: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const deliverDue = () => {
      timer = undefined;
      while (delayed.length > 0 && delayed[0]!.at <= Date.now()) {
        const { chunk } = delayed.shift()!;
        if (client.writable) client.write(chunk);
      }
      if (delayed.length > 0) timer = setTimeout(deliverDue, delayed[0]!.at - Date.now());
    };
    upstream.on('data', (chunk: Buffer) => {
      if (withholding) return;
      if (replyDelayMs === 0 && delayed.length === 0) {
        client.write(chunk);
        return;
      }
      delayed.push({ at: Date.now() + replyDelayMs, chunk });
      timer ??= setTimeout(deliverDue, delayed[0]!.at - Date.now());
    });
    const end = () => {
      clearTimeout(timer);
      clients.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const resetClients = () =>
    Promise.all(
      [...clients].map((client) => new Promise<void>((resolve) => client.once('close', resolve).resetAndDestroy())),
    ).then(() => {});
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    nextClientWrite: () =>
      new Promise((resolve) => {
        onClientWrite = () => {
          onClientWrite = undefined;
          resolve();
        };
      }),
    withholdReplies: () => {
      withholding = true;
    },
    delayReplies: (ms) => {
      replyDelayMs = ms;
      delayAfter = undefined;
    },
    delayRepliesAfter: (marker, ms) => {
      delayAfter = { marker, ms };
    },
    resetClients,
    async refuse() {
      const stopped = stopListening();
      await resetClients();
      await stopped;
    },
    accept: () => listen(port),
    close: async () => {
      const stopped = server.listening ? stopListening() : undefined;
      await resetClients();
      await stopped;
    },
  };
}

/** A relay in front of a database, with the URL that reaches the database through it. */
export type DatabaseRelay = TcpRelay & { databaseUrl: string };

/** A relay in front of the PostgreSQL of `databaseUrl`. */
export async function startDatabaseRelay(databaseUrl: string): Promise<DatabaseRelay> {
  const target = new URL(databaseUrl);
  const relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
  target.host = `127.0.0.1:${relay.port}`;
  return Object.assign(relay, { databaseUrl: target.toString() });
}
