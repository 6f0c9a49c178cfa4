// A socket's event budget through the official client: with 5 events per second, a burst of
// publishes beyond it is refused with REALTIME_RATE_LIMITED (nothing stored for those), a
// subscribe on a spent budget is refused too, and once a second has passed (the test's clock)
// the socket publishes again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;

beforeAll(async () => {
  s = await startSdkApp({ env: { REALTIME_SOCKET_EVENTS_PER_SECOND: '5', REALTIME_HEARTBEAT_MS: '3600000' } });
  const res = await s.t.request({
    method: 'POST',
    url: '/api/realtime/channels',
    headers: { 'x-api-key': s.t.apiKey },
    payload: { pattern: 'chat:%' },
  });
  expect(res.statusCode).toBe(201);
});
afterAll(() => s.close());

const stored = async (channel: string) =>
  (
    await s.t.deps
      .sql`select payload->>'n' as n from realtime.messages where channel_name = ${channel} order by created_at`
  ).map((row) => Number(row.n));

describe('the event budget of one socket', () => {
  it('refuses what goes past it, stores only what it let through, and refills with time', async () => {
    const client = s.client();
    await client.realtime.connect();
    const refusals: { code: string }[] = [];
    client.realtime.on('error', (error: { code: string }) => refusals.push(error));
    const heard: number[] = [];
    client.realtime.on('tick', (message: { n: number }) => heard.push(message.n));
    expect(await client.realtime.subscribe('chat:burst')).toMatchObject({ ok: true }); // 1 of 5

    for (let n = 1; n <= 10; n++) await client.realtime.publish('chat:burst', 'tick', { n });
    // The four it had left are delivered (to the publisher too); the other six are refused.
    await expect.poll(() => heard.length).toBe(4);
    await expect.poll(() => refusals.length).toBe(6);
    expect(refusals.every((r) => r.code === 'REALTIME_RATE_LIMITED')).toBe(true);
    expect(await client.realtime.subscribe('chat:other')).toMatchObject({
      ok: false,
      error: { code: 'REALTIME_RATE_LIMITED' },
    });

    s.t.clock.advance(1_000);
    await client.realtime.publish('chat:burst', 'tick', { n: 11 });
    // Publishes of one socket are stored concurrently: compare them as sets.
    await expect.poll(() => [...heard].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 11]);
    expect((await stored('chat:burst')).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 11]);
    client.realtime.disconnect();
  });
});
