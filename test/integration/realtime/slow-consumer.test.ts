// A client that stops reading its socket cannot hold up a channel: once its unsent backlog has
// stayed past the bound for the grace period (the injected clock), the server cuts it (its
// member leaves), and the other subscribers get every message; a burst that a reading client
// drains in time cuts no one. Driven through the official client; the slow one's TCP socket is paused.
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from '../sdk/sdk-app.js';

let s: SdkApp;
const clients: InsForgeClient[] = [];
beforeAll(async () => {
  s = await startSdkApp();
  await s.t.deps.sql`insert into realtime.channels (pattern) values ('firehose')`;
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await s.close();
});

/** The client's underlying TCP socket (socket.io-client → engine.io WebSocket transport → ws). */
const tcpOf = (client: InsForgeClient) =>
  (client.realtime as unknown as { socket: { io: { engine: { transport: { ws: { _socket: { pause(): void } } } } } } })
    .socket.io.engine.transport.ws._socket;

it('cuts a subscriber that does not read, and delivers everything to the others', async () => {
  const fast = s.client();
  const slow = s.client();
  clients.push(fast, slow);
  await fast.realtime.subscribe('firehose');
  await slow.realtime.subscribe('firehose');
  const slowId = slow.realtime.socketId;
  const fastId = fast.realtime.socketId;
  tcpOf(slow).pause();

  const MESSAGES = 40;
  const received: number[] = [];
  const all = new Promise<void>((resolve) =>
    fast.realtime.on('blob', (message: { n: number }) => {
      received.push(message.n);
      if (received.length === MESSAGES) resolve();
    }),
  );
  const left = new Promise((resolve) =>
    fast.realtime.on('presence:leave', (event: { member: { presenceId: string } }) => {
      if (event.member.presenceId === slowId) resolve(event);
    }),
  );
  // 40 messages of 500 KB: far more than the kernel buffers of a paused loopback connection hold.
  await s.t.deps.sql`
    select realtime.publish('firehose', 'blob', jsonb_build_object('n', n, 'data', repeat('x', 500000)))
    from generate_series(1, ${MESSAGES}) as n`;
  await all;
  expect(received).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));

  // Past the grace period the next delivery finds the reader that kept up drained, the other not.
  s.t.clock.advance(6_000);
  const last = new Promise((resolve) => fast.realtime.once('last', resolve));
  await s.t.deps.sql`select realtime.publish('firehose', 'last', '{}'::jsonb)`;
  await last;
  await left;
  expect(fast.realtime.socketId).toBe(fastId); // never cut
}, 30_000);
