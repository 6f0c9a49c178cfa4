// The scenarios every realtime bus engine must pass: three servers on one database behind a
// round-robin balancer, their realtime fan-out carried by a broker of this file's own (so it
// can be restarted): broadcasts across servers, presence across servers, one order per channel,
// and a broker restart mid-run (servers reconnect, missed messages arrive, presence resyncs).
import { randomBytes } from 'node:crypto';
import { createClient } from '@insforge/sdk';
import { Redis } from 'ioredis';
import { connect, StringCodec } from 'nats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Balancer, startBalancer } from '../../harness/balancer.js';
import { type Broker, startNatsBroker, startRedisBroker } from '../../harness/brokers.js';
import { freePort } from '../../harness/free-port.js';
import { type Server, startTestApp, type TestApp } from '../../harness/test-app.js';

type Realtime = ReturnType<typeof createClient>['realtime'];
interface Heard {
  text: string;
  meta: { messageId: string };
}

/** Subscribes to the broker's message topic directly: what the servers put on the broker. */
async function tapBroker(broker: Broker, prefix: string): Promise<{ seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  if (broker.engine === 'redis') {
    const redis = new Redis(broker.url);
    redis.on('message', (_channel: string, message: string) => seen.push(message));
    await redis.subscribe(`${prefix}:realtime_message`);
    return { seen, close: async () => void redis.disconnect() };
  }
  const nc = await connect({ servers: broker.url.replace('nats://', '') });
  const codec = StringCodec();
  nc.subscribe(`${prefix}.durable.realtime_message`, { callback: (_err, m) => seen.push(codec.decode(m.data)) });
  await nc.flush();
  return { seen, close: () => nc.close() };
}

export function describeBusFanout(engine: Broker['engine']) {
  let broker: Broker;
  let t: TestApp;
  let proxy: Balancer;
  const others: Server[] = [];
  const clients: Realtime[] = [];
  const prefix = `t${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    broker = engine === 'nats' ? await startNatsBroker() : await startRedisBroker();
    const ports = [await freePort(), await freePort(), await freePort()];
    proxy = await startBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
    t = await startTestApp({
      env: { REALTIME_BUS_URL: broker.url, REALTIME_BUS_PREFIX: prefix, API_BASE_URL: proxy.url, TRUST_PROXY: 'true' },
    });
    await t.app.listen({ port: ports[0]!, host: '127.0.0.1' });
    for (const port of ports.slice(1)) {
      const server = await t.startAnotherServer();
      others.push(server);
      await server.app.listen({ port, host: '127.0.0.1' });
    }
    const channel = await t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: { 'x-api-key': t.apiKey },
      payload: { pattern: 'bus:%' },
    });
    expect(channel.statusCode).toBe(201);
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await proxy?.close();
    for (const server of others) await server.close();
    await t?.close();
    await broker?.close();
  });

  /** A connected anonymous socket; consecutive calls land on the servers in turn (round robin). */
  async function connectClient(): Promise<Realtime> {
    const client = createClient({ baseUrl: proxy.url, anonKey: t.anonKey, retryCount: 0 }).realtime;
    clients.push(client);
    await client.connect();
    return client;
  }

  /** Three sockets subscribed to `channel`, one on each server. */
  async function oneOnEachServer(channel: string): Promise<Realtime[]> {
    const sockets = [await connectClient(), await connectClient(), await connectClient()];
    for (const socket of sockets) expect(await socket.subscribe(channel)).toMatchObject({ ok: true });
    const servers = await t.deps.sql`select distinct server_id from realtime.presence where channel_name = ${channel}`;
    expect(servers).toHaveLength(3);
    return sockets;
  }

  const hearing = (socket: Realtime, event: string) => {
    const heard: Heard[] = [];
    socket.on<Heard>(event, (message) => heard.push(message));
    return heard;
  };
  const presenceIds = (socket: Realtime, channel: string) =>
    socket
      .getPresenceState(channel)
      .map((m) => m.presenceId)
      .sort();
  const ids = (sockets: Realtime[]) => sockets.map((s) => s.socketId!).sort();

  describe(`realtime fan-out through ${engine}`, () => {
    it('broadcast: a socket on each server hears every server’s messages, carried by the broker', async () => {
      const tap = await tapBroker(broker, prefix);
      try {
        const sockets = await oneOnEachServer('bus:broadcast');
        const heard = sockets.map((s) => hearing(s, 'note'));
        for (const [i, socket] of sockets.entries())
          await socket.publish('bus:broadcast', 'note', { text: `from ${i}` });
        await vi.waitFor(
          () => {
            for (const got of heard) expect(got.map((m) => m.text).sort()).toEqual(['from 0', 'from 1', 'from 2']);
          },
          { timeout: 10_000, interval: 25 },
        );
        // The broker carried them: the tap saw each message's JSON, with the ids the sockets got.
        const carried = tap.seen.map((json) => (JSON.parse(json) as { id: string }).id).sort();
        expect(carried).toEqual(heard[0]!.map((m) => m.meta.messageId).sort());
      } finally {
        await tap.close();
      }
    });

    it('presence: every socket sees the members of all servers; a leave on one server reaches the others', async () => {
      const sockets = await oneOnEachServer('bus:presence');
      for (const socket of sockets) {
        await vi.waitFor(() => expect(presenceIds(socket, 'bus:presence')).toEqual(ids(sockets)), {
          timeout: 10_000,
          interval: 25,
        });
      }
      const [first, second, third] = sockets as [Realtime, Realtime, Realtime];
      third.unsubscribe('bus:presence');
      for (const socket of [first, second]) {
        await vi.waitFor(() => expect(presenceIds(socket, 'bus:presence')).toEqual(ids([first, second])), {
          timeout: 10_000,
          interval: 25,
        });
      }
    });

    it('order: every server delivers a burst on one channel in one order, each message once', async () => {
      const sockets = await oneOnEachServer('bus:order');
      const heard = sockets.map((s) => hearing(s, 'seq'));
      const refusals: unknown[] = [];
      for (const socket of sockets) socket.on('realtime:error', (e) => refusals.push(e));
      // Two publishers on different servers, interleaved, in rounds of four (the test servers'
      // pools hold 5 connections: a bigger burst would be refused as busy, by design).
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 4; i++) await sockets[i % 2]!.publish('bus:order', 'seq', { text: `m${round * 4 + i}` });
        await vi.waitFor(() => expect(heard.map((h) => h.length)).toEqual(Array(3).fill((round + 1) * 4)), {
          timeout: 15_000,
          interval: 10,
        });
      }
      expect(refusals).toEqual([]);
      const orders = heard.map((h) => h.map((m) => m.meta.messageId));
      expect(new Set(orders[0]).size).toBe(40);
      expect(orders[1]).toEqual(orders[0]);
      expect(orders[2]).toEqual(orders[0]);
    });

    it('broker restart: servers reconnect, messages stored meanwhile arrive, presence resynchronises', async () => {
      const sockets = await oneOnEachServer('bus:restart');
      const [first, second, third] = sockets as [Realtime, Realtime, Realtime];
      for (const socket of sockets) {
        await vi.waitFor(() => expect(presenceIds(socket, 'bus:restart')).toEqual(ids(sockets)), { timeout: 10_000 });
      }
      const heardBySecond = hearing(second, 'during');
      await broker.stop();
      // While the broker is down: one member leaves, a message is published (stored in PostgreSQL).
      third.unsubscribe('bus:restart');
      await vi.waitFor(
        async () =>
          expect(await t.deps.sql`select 1 from realtime.presence where channel_name = 'bus:restart'`).toHaveLength(2),
        { timeout: 10_000 },
      );
      await first.publish('bus:restart', 'during', { text: 'published while the broker was down' });
      await vi.waitFor(
        async () =>
          expect(await t.deps.sql`select 1 from realtime.messages where channel_name = 'bus:restart'`).toHaveLength(1),
        { timeout: 10_000 },
      );
      await broker.start();
      // The message reaches the socket on the other server once its bus is back.
      await vi.waitFor(
        () => expect(heardBySecond.map((m) => m.text)).toEqual(['published while the broker was down']),
        {
          timeout: 20_000,
          interval: 50,
        },
      );
      // Presence: the leave (lost or late) is made good on both remaining sockets.
      for (const socket of [first, second]) {
        await vi.waitFor(() => expect(presenceIds(socket, 'bus:restart')).toEqual(ids([first, second])), {
          timeout: 20_000,
          interval: 50,
        });
      }
      // And the bus carries new messages again, to every server.
      const after = [first, second].map((s) => hearing(s, 'after'));
      await second.publish('bus:restart', 'after', { text: 'after the restart' });
      await vi.waitFor(() => expect(after.map((h) => h.length)).toEqual([1, 1]), { timeout: 20_000, interval: 50 });
    });
  });
}
