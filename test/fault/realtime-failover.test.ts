// Realtime fail-over: clients of the official SDK subscribed through a load balancer to server A;
// A is killed (-9, with its runtime); they reconnect through the balancer to server B, subscribe
// again on their own, and receive every message published after that, once each and in order.
import { createClient, type InsForgeClient } from '@insforge/sdk';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { type Balancer, startBalancer } from '../harness/balancer.js';
import { pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { createDatabase } from '../harness/test-database.js';

const CLIENTS = 6;
const MESSAGES = 100;
const CHANNEL = 'room:failover';

const servers: ServerProcess[] = [];
const clients: InsForgeClient[] = [];
let proxy: Balancer | undefined;
let sql: postgres.Sql | undefined;
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await proxy?.close();
  await sql?.end();
  for (const s of servers.reverse()) await s.close({ stopSignal: 'SIGKILL' });
});

describe('a realtime server killed while clients are subscribed', () => {
  it('its clients reconnect to the other server and miss nothing published after they did', async () => {
    const databaseUrl = await createDatabase();
    const a = await startServerProcess({ databaseUrl });
    servers.push(a);
    const b = await startServerProcess({
      databaseUrl,
      env: { PLINTH_ENCRYPTION_KEY: a.env.PLINTH_ENCRYPTION_KEY as string },
    });
    servers.push(b);
    proxy = await startBalancer([a.baseUrl, b.baseUrl], 'first-up');
    sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const channel = await fetch(`${b.baseUrl}/api/realtime/channels`, {
      method: 'POST',
      headers: { 'x-api-key': b.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ pattern: 'room:%' }),
    });
    expect(channel.status, await channel.text()).toBe(201);

    // Every message a client hears on the channel, by number; and its reconnections.
    const heard = new Map<InsForgeClient, number[]>();
    const connects = new Map<InsForgeClient, number>();
    for (let i = 0; i < CLIENTS; i++) {
      const client = createClient({ baseUrl: proxy.url, anonKey: a.anonKey, retryCount: 0 });
      clients.push(client);
      heard.set(client, []);
      connects.set(client, 0);
      client.realtime.on('connect', () => connects.set(client, (connects.get(client) ?? 0) + 1));
      client.realtime.on('tick', (message: { n: number }) => heard.get(client)?.push(message.n));
      await client.realtime.connect();
      expect(await client.realtime.subscribe(CHANNEL)).toMatchObject({ ok: true, channel: CHANNEL });
    }
    const onA = await sql`select server_id from realtime.presence where channel_name = ${CHANNEL}`;
    expect(onA).toHaveLength(CLIENTS);
    const serverA = onA[0]?.server_id as string;
    expect(onA.every((row) => row.server_id === serverA)).toBe(true);

    process.kill(-a.pid, 'SIGKILL');
    await a.exited;

    // Each client is back (a second connect) and subscribed again: a probe published from SQL
    // (-1, -2, …) reaches every one of them.
    let probe = 0;
    await pollUntil(
      'every client to hear a probe on the other server',
      60_000,
      async () => {
        probe -= 1;
        await sql!`select realtime.publish(${CHANNEL}, 'tick', ${sql!.json({ n: probe })})`;
        await new Promise((resolve) => setImmediate(resolve));
        return clients.every((c) => (connects.get(c) ?? 0) >= 2 && heard.get(c)?.some((n) => n < 0)) || undefined;
      },
      250,
    );

    for (let n = 1; n <= MESSAGES; n++) {
      await sql`select realtime.publish(${CHANNEL}, 'tick', ${sql.json({ n })})`;
    }
    const expected = Array.from({ length: MESSAGES }, (_, i) => i + 1);
    await pollUntil(
      'every message to reach every client',
      30_000,
      () => clients.every((c) => (heard.get(c) ?? []).filter((n) => n > 0).length >= MESSAGES) || undefined,
    ).catch(() => undefined);
    for (const client of clients) {
      expect((heard.get(client) ?? []).filter((n) => n > 0)).toEqual(expected);
    }
    // Their presence is now held by the surviving server.
    const onB =
      await sql`select count(*)::int as n from realtime.presence where channel_name = ${CHANNEL} and server_id <> ${serverA}`;
    expect(onB[0]?.n).toBe(CLIENTS);
  }, 120_000);
});
