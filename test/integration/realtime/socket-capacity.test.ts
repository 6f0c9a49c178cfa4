// Realtime capacity through the official client on a real port: one client IP and one user hold at
// most so many sockets (the next handshake is refused as busy, retryable), the sockets of one IP
// share an event budget, a subscribe while the database pool is at capacity is answered busy and
// never "unauthorized", and every refusal is counted in GET /metrics instead of logged.
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { startSdkApp, type SdkApp } from '../sdk/sdk-app.js';

let s: SdkApp;
const open: InsForgeClient[] = [];
beforeAll(async () => {
  s = await startSdkApp({
    env: {
      REALTIME_MAX_SOCKETS_PER_IP: '4',
      REALTIME_MAX_SOCKETS_PER_USER: '2',
      REALTIME_IP_EVENTS_PER_SECOND: '10',
      // Five connections and no queue: a sixth database envelope at once is refused.
      DB_POOL_QUEUE_MAX: '0',
    },
  });
  await s.t.deps.sql`insert into realtime.channels (pattern) values ('lobby:%')`;
});
afterAll(async () => {
  closeAll();
  await s.close();
});

function closeAll() {
  for (const client of open.splice(0)) client.realtime.disconnect();
}

/**
 * A connected client, closed by closeAll(). A busy refusal is retried, as a client should: the
 * sockets an earlier test closed give their places back once the server sees them close.
 */
async function connected(options: Parameters<SdkApp['client']>[0] = {}): Promise<InsForgeClient> {
  for (let attempt = 1; ; attempt++) {
    const client = s.client(options);
    open.push(client);
    try {
      await client.realtime.connect();
      return client;
    } catch (err) {
      if ((err as { data?: { code?: string } }).data?.code !== 'REALTIME_BUSY' || attempt === 100) throw err;
    }
  }
}

/** The refusals GET /metrics reports for `reason` (0 when none yet). */
async function refusedMetric(reason: string): Promise<number> {
  const res = await fetch(`${s.baseUrl}/metrics`, { headers: bearer(s.t.apiKey) });
  const line = (await res.text())
    .split('\n')
    .find((l) => l.startsWith(`plinth_realtime_refused_total{reason="${reason}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

const BUSY_IP = {
  message: 'Server busy: too many connections from this address; retry later',
  data: { code: 'REALTIME_BUSY', retryable: true },
};

describe('socket caps', () => {
  it('refuses the cap+1-th socket from one IP as busy, counts it, and admits again once one closes', async () => {
    const clients = [];
    for (let n = 0; n < 4; n++) clients.push(await connected());
    const extra = s.client(); // not retried
    open.push(extra);
    await expect(extra.realtime.connect()).rejects.toMatchObject(BUSY_IP);
    expect(await refusedMetric('sockets_per_ip')).toBe(1);
    // Still working: the four sockets in place subscribe.
    for (const client of clients) expect((await client.realtime.subscribe('lobby:a')).ok).toBe(true);

    const leaving = clients[0]!;
    leaving.realtime.disconnect();
    // The place comes back when the server sees the close: a retry gets in.
    await expect(connected()).resolves.toBeDefined();
    closeAll();
  });

  it('refuses a user past their own cap, with its own busy message', async () => {
    const user = await s.t.signUp();
    await connected({ accessToken: user.accessToken });
    await connected({ accessToken: user.accessToken });
    const third = s.client({ accessToken: user.accessToken });
    open.push(third);
    await expect(third.realtime.connect()).rejects.toMatchObject({
      message: 'Server busy: too many connections for this user; retry later',
      data: { code: 'REALTIME_BUSY', retryable: true },
    });
    // Another user (and anon) from the same IP still get in.
    const other = await s.t.signUp();
    await expect(connected({ accessToken: other.accessToken })).resolves.toBeDefined();
    expect(await refusedMetric('sockets_per_user')).toBe(1);
    closeAll();
  });
});

describe('shared budgets and a busy database', () => {
  it("shares one event budget among an IP's sockets: past it, busy (retryable), refilled as the clock moves", async () => {
    s.t.clock.advance(1_000);
    const a = await connected();
    const b = await connected();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => (n % 2 ? a : b).realtime.subscribe(`lobby:budget-${n}`)),
    );
    // Ten pass the IP's budget (some of those may still find the small pool full: busy too).
    const codes = answers.map((ack) => (ack.ok ? 'ok' : ack.error?.code));
    expect(codes.filter((c) => c !== 'ok' && c !== 'REALTIME_BUSY')).toEqual([]);
    expect(codes.filter((c) => c === 'REALTIME_BUSY').length).toBeGreaterThanOrEqual(2);
    expect(await refusedMetric('ip_events')).toBe(2);
    s.t.clock.advance(1_000);
    expect((await a.realtime.subscribe('lobby:budget-after')).ok).toBe(true);
    closeAll();
  });

  it('answers subscribes that find the database pool at capacity busy, never unauthorized', async () => {
    s.t.clock.advance(1_000);
    // Every channel check now takes 300 ms, so eight at once need more than the five connections.
    await s.t.deps.sql.unsafe(`
      alter table realtime.channels enable row level security;
      create policy slow_visible on realtime.channels for select to anon using ((select pg_sleep(0.3)) is not null);`);
    try {
      const clients = [];
      for (let n = 0; n < 4; n++) clients.push(await connected());
      const answers = await Promise.all(
        clients.flatMap((client, n) => [
          client.realtime.subscribe(`lobby:load-${n}-a`),
          client.realtime.subscribe(`lobby:load-${n}-b`),
        ]),
      );
      const codes = answers.map((ack) => (ack.ok ? 'ok' : ack.error?.code));
      expect(codes).not.toContain('REALTIME_UNAUTHORIZED');
      expect(codes).toContain('REALTIME_BUSY');
      expect(codes).toContain('ok');
      for (const ack of answers) {
        if (!ack.ok)
          expect(ack.error).toEqual({
            code: 'REALTIME_BUSY',
            message: 'The realtime server is busy; retry in a moment',
          });
      }
      expect(await refusedMetric('database_busy')).toBeGreaterThanOrEqual(codes.filter((c) => c !== 'ok').length);
    } finally {
      await s.t.deps.sql.unsafe(`
        drop policy slow_visible on realtime.channels;
        alter table realtime.channels disable row level security;`);
      closeAll();
    }
  });
});
