// Logical change capture's leader killed (-9) while rows are written at a steady rate: two compiled
// servers (`node dist/main.js`) with REALTIME_CHANGES=logical on one PostgreSQL cluster with
// wal_level=logical; the follower takes the advisory lock and the slot within a bound, and a socket
// client of the official SDK on the surviving server receives every committed change at least
// once, in commit order, each change always under the same message id (so a client drops any
// duplicate by meta.messageId).
import { createClient, type InsForgeClient } from '@insforge/sdk';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { type LogicalCluster, startLogicalCluster } from '../harness/logical-postgres.js';
import { pollUntil, type ServerProcess, spawnServer, waitReady } from '../harness/server-process.js';
import { TEST_ADMIN } from '../harness/test-app.js';

/** How often a follower tries to take the lead (the server's setting). */
const LEADER_POLL_MS = 200;
/** The bound on the takeover: from the kill to the follower leading and reading the slot. */
const TAKEOVER_BOUND_MS = 10_000;
/** Writer pace: one committed INSERT every WRITE_EVERY_MS. */
const WRITE_EVERY_MS = 10;

let cluster: LogicalCluster;
const servers: ServerProcess[] = [];
const clients: InsForgeClient[] = [];
let writer: postgres.Sql | undefined;

beforeAll(async () => {
  cluster = await startLogicalCluster();
}, 60_000);
afterAll(async () => {
  for (const c of clients) c.realtime.disconnect();
  await writer?.end();
  for (const s of servers.reverse()) await s.close({ stopSignal: 'SIGKILL' });
  await cluster?.stop();
});

async function startServer(databaseUrl: string): Promise<ServerProcess> {
  const port = await freePort();
  const s = await spawnServer({
    compiled: true,
    env: {
      PORT: String(port),
      API_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: databaseUrl,
      REALTIME_CHANGES: 'logical',
      REALTIME_CHANGES_LEADER_POLL_MS: String(LEADER_POLL_MS),
      LOG_LEVEL: 'warn',
    },
  });
  servers.push(s);
  await waitReady(s, 60_000);
  return s;
}

/** The admin's API key and the anon key, as an operator gets them. */
async function keysOf(baseUrl: string): Promise<{ apiKey: string; anonKey: string }> {
  const signIn = await fetch(`${baseUrl}/api/auth/admin/sessions?client_type=server`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(TEST_ADMIN),
  });
  expect(signIn.status, await signIn.clone().text()).toBe(200);
  const auth = { authorization: `Bearer ${((await signIn.json()) as { accessToken: string }).accessToken}` };
  const { apiKey } = (await (await fetch(`${baseUrl}/api/metadata/api-key`, { headers: auth })).json()) as {
    apiKey: string;
  };
  const { anonKey } = (await (await fetch(`${baseUrl}/api/metadata/anon-key`, { headers: auth })).json()) as {
    anonKey: string;
  };
  return { apiKey, anonKey };
}

async function captureStatus(s: ServerProcess, apiKey: string) {
  const res = await fetch(`${s.baseUrl}/api/realtime/change-capture`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return (await res.json()) as { role: string; slotActive: boolean; published: number; skipped: number };
}

/** A socket client of the official SDK on `s`, subscribed to the table's changes: what it hears, in order. */
async function socketOn(s: ServerProcess, anonKey: string): Promise<{ n: number; id: string }[]> {
  const heard: { n: number; id: string }[] = [];
  const client = createClient({ baseUrl: s.baseUrl, anonKey, retryCount: 0 });
  clients.push(client);
  client.realtime.on('INSERT', (body: { new: { n: number }; meta: { messageId: string } }) =>
    heard.push({ n: body.new.n, id: body.meta.messageId }),
  );
  await client.realtime.connect();
  expect((await client.realtime.subscribe('table:public.events')).ok).toBe(true);
  return heard;
}

/** Drops repeated message ids (asserting each id always carries the same change): the changes, in arrival order. */
function dedupe(heard: { n: number; id: string }[]): number[] {
  const seen = new Map<string, number>();
  const changes: number[] = [];
  for (const h of heard) {
    if (seen.has(h.id)) {
      expect(seen.get(h.id), `message ${h.id} carried two changes`).toBe(h.n);
      continue;
    }
    seen.set(h.id, h.n);
    changes.push(h.n);
  }
  return changes;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the change capture leader killed while rows are written', { timeout: 180_000 }, () => {
  let databaseUrl: string;
  let apiKey: string;
  let anonKey: string;
  let b: ServerProcess;
  /** Rows written so far (numbered 1…committed, in commit order). */
  let committed = 0;
  const leaderLock = () => writer!<{ pid: number }[]>`
    select l.pid from pg_locks l join pg_stat_activity a using (pid)
    where l.locktype = 'advisory' and l.granted and a.datname = current_database()
      and a.application_name = 'plinth-change-capture-leader'`;

  it('the follower takes the lock and the slot within the bound; its socket client misses nothing, in commit order', async () => {
    databaseUrl = await cluster.createDatabase();
    writer = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    await writer.unsafe(`
      create table public.events (n int primary key, at timestamptz not null default clock_timestamp());
      alter table public.events enable row level security;
      create policy events_read on public.events for select to anon using (true);
      grant select on public.events to anon;
      select realtime.watch_table('public.events');`);

    // A first, so that it leads; then B, which follows.
    const a = await startServer(databaseUrl);
    ({ apiKey, anonKey } = await keysOf(a.baseUrl));
    await pollUntil('A to lead', 30_000, async () => (await captureStatus(a, apiKey)).role === 'leader');
    b = await startServer(databaseUrl);
    expect((await captureStatus(b, apiKey)).role).toBe('follower');
    // The lock's holder is A's leader connection.
    const holders = await leaderLock();
    expect(holders).toHaveLength(1);
    const holder = holders[0];

    // Every change the socket on B hears: the row's number and the message's id.
    const heard = await socketOn(b, anonKey);

    // The writer: one committed INSERT every WRITE_EVERY_MS, numbered in commit order.
    let writing = true;
    const writes = (async () => {
      while (writing) {
        await writer!`insert into public.events (n) values (${committed + 1})`;
        committed += 1;
        await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
      }
    })();

    try {
      await pollUntil('B to deliver what A publishes', 30_000, () => heard.length >= 100);
      const committedAtKill = committed;
      const killedAt = Date.now();
      a.signal('SIGKILL');
      await a.exited;

      await pollUntil('B to lead and read the slot', TAKEOVER_BOUND_MS + 20_000, async () => {
        const status = await captureStatus(b, apiKey);
        return status.role === 'leader' && status.slotActive;
      });
      const takeoverMs = Date.now() - killedAt;
      // The first change committed after the kill reaches the socket on B.
      await pollUntil('a change committed after the kill', 30_000, () => heard.some((h) => h.n > committedAtKill + 1));
      const firstDeliveryMs = Date.now() - killedAt;
      // Writes go on under the new leader for a while.
      const target = committed + 200;
      await pollUntil('200 more commits', 30_000, () => committed >= target);
      writing = false;
      await writes;

      const total = committed;
      const distinct = () => new Set(heard.map((h) => h.id)).size;
      await pollUntil(`all ${total} changes on B's socket`, 60_000, () => distinct() >= total).catch(() => undefined);

      // At least once, in commit order: dropping repeated message ids leaves 1..total.
      const deduped = dedupe(heard);
      const missing = range(1, total).filter((n) => !deduped.includes(n));
      if (missing.length > 0) {
        const stored = await writer<{ n: number; channel: string; id: string; created: string }[]>`
          select (payload -> 'new' ->> 'n')::int as n, channel_name as channel, id::text as id, created_at::text as created
          from realtime.messages where (payload -> 'new' ->> 'n')::int = any(${missing}::int[])`;
        console.error(
          JSON.stringify({
            missing,
            committedAtKill,
            stored,
            around: heard.filter((h) => Math.abs(h.n - missing[0]!) < 4),
          }),
          b.output().slice(-3000),
        );
      }
      expect(deduped).toEqual(range(1, total));

      const after = await leaderLock();
      expect(after).toHaveLength(1);
      expect(after[0]?.pid).not.toBe(holder?.pid);
      const status = await captureStatus(b, apiKey);
      expect(status).toMatchObject({ role: 'leader', slotActive: true, skipped: 0 });
      // At least every change committed after the kill (one in flight at the kill may have been A's).
      expect(status.published).toBeGreaterThanOrEqual(total - committedAtKill - 1);
      expect(takeoverMs, `takeover took ${takeoverMs} ms`).toBeLessThan(TAKEOVER_BOUND_MS);
      console.info(
        `logical capture failover: ${total} commits (${committedAtKill} before the kill), takeover ${takeoverMs} ms, first change after the kill delivered ${firstDeliveryMs} ms after it, B published ${status.published} changes (${status.published - (total - committedAtKill)} decoded again), ${heard.length - deduped.length} duplicates on the socket`,
      );
    } finally {
      writing = false;
      await writes.catch(() => {});
    }
  });
  it('a leader killed with a batch in flight: the next one decodes it again, and the ids keep it once', async () => {
    // C follows B, the leader now; a socket on C.
    const c = await startServer(databaseUrl);
    const heard = await socketOn(c, anonKey);
    const first = committed + 1;
    const write = async (rows: number) => {
      for (let i = 0; i < rows; i++) {
        await writer!`insert into public.events (n) values (${committed + 1})`;
        committed += 1;
      }
    };
    // B's publish waits on a lock on realtime.messages: its changes are decoded, not confirmed.
    const blocker = await writer!.reserve();
    try {
      await blocker`begin`;
      await blocker`lock table realtime.messages in access exclusive mode`;
      await write(50);
      await pollUntil('B publishing, held by the lock', 30_000, async () => {
        const [row] = await writer!<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = 'plinth-change-capture-leader'
            and wait_event_type = 'Lock'`;
        return row?.n === 1;
      });
      b.signal('SIGKILL');
      await b.exited;
      // Written while no server may lead (B's backend, still running its statement, holds the lock).
      await write(50);
    } finally {
      await blocker`commit`.catch(() => {});
      blocker.release();
    }
    // B's backend finishes its statement (its messages stored and announced), then C takes over from
    // B's last confirmed position: the 50 B stored are decoded again.
    await pollUntil('C to lead', 30_000, async () => (await captureStatus(c, apiKey)).role === 'leader');
    await write(20);
    const changes = () => dedupe(heard).filter((n) => n >= first);
    await pollUntil(`rows ${first}-${committed} on C's socket`, 60_000, () => changes().length >= 120).catch(
      () => undefined,
    );
    expect(changes()).toEqual(range(first, committed));
    const status = await captureStatus(c, apiKey);
    expect(status).toMatchObject({ role: 'leader', slotActive: true, skipped: 0 });
    // Every one of the 120 was decoded by C: the 50 of the batch B had in flight again.
    expect(status.published).toBeGreaterThanOrEqual(120);
    // Decoded twice, stored once: one table-channel message per row.
    const [stored] = await writer!<{ n: number }[]>`
      select count(*)::int as n from realtime.messages
      where channel_name = 'table:public.events' and (payload -> 'new' ->> 'n')::int >= ${first}`;
    expect(stored?.n).toBe(120);
    console.info(
      `logical capture failover with a batch in flight: C published ${status.published} of 120 changes, ${heard.filter((h) => h.n >= first).length - changes().length} duplicates on the socket`,
    );
  });
});
