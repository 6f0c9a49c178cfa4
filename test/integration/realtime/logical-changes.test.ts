// Table changes from logical replication (REALTIME_CHANGES=logical) on a PostgreSQL cluster of
// this file's own with wal_level=logical: socket.io clients (the official SDK) receive exactly
// what trigger mode sends them for the same writes; unwatching takes a table out of the
// publication; changes written while no server leads are delivered once one takes the lead (none
// lost, none twice); a consumer that stops confirming shows its retained WAL in /metrics and a
// readiness warning; switching a database back to triggers drops the slot.
import type { InsForgeClient } from '@insforge/sdk';
import { createClient } from '@insforge/sdk';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { type LogicalCluster, startLogicalCluster } from '../../harness/logical-postgres.js';
import { pollUntil } from '../../harness/server-process.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

const LOGICAL = { REALTIME_CHANGES: 'logical', REALTIME_CHANGES_LEADER_POLL_MS: '100' };
const CAPTURE_LOCK = 'plinth.realtime.change_capture';

const ITEMS_DDL = `
  create table public.items (
    id int primary key, title text, price numeric(10, 2), tags text[], doc jsonb, at timestamptz,
    flag boolean, blob bytea, big text, title_upper text generated always as (upper(title)) stored);
  create policy items_read on public.items for select to anon using (id < 1000);
  revoke all on public.items from anon;
  grant select (id, title, price, tags, doc, at, flag, big, title_upper) on public.items to anon;
  create table public.sentinel (id int primary key);
  create policy sentinel_read on public.sentinel for select to anon using (true);
  grant select on public.sentinel to anon;
  select realtime.watch_table('public.items');
  select realtime.watch_table('public.sentinel');`;

/** Writes covering the row images' hard cases: quoting, arrays, json, time zones, bytea, TOAST, generated columns, key changes. */
const WRITES = [
  `insert into public.items values (1, 'a "quoted", \\ (comma)', 12.5, '{x,"y z",NULL}', '{"k": [1, 2.50, {"n": null}]}',
     '2024-05-06 07:08:09.123456+02', true, '\\x00ff10', (select string_agg(md5(i::text), '') from generate_series(1, 400) i))`,
  `insert into public.items (id, title) values (1000, 'hidden by RLS')`,
  `insert into public.items (id, title) values (2, null)`,
  `update public.items set title = 'b', price = 13 where id = 1`,
  `update public.items set id = 3 where id = 2; delete from public.items where id = 1`,
];

interface Received {
  event: string;
  body: any;
}

interface Listener {
  t: TestApp;
  client: InsForgeClient;
  received: Received[];
  /** Resolves once `n` events arrived in all. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A server on `databaseUrl` listening on a port, with an anon SDK client subscribed to the tables' channels. */
async function listener(databaseUrl: string, env: Record<string, string>, setupSql?: string): Promise<Listener> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ databaseUrl, env: { API_BASE_URL: baseUrl, ...env } });
  if (setupSql) await t.deps.sql.unsafe(setupSql);
  await t.app.listen({ port, host: '127.0.0.1' });
  const client = createClient({ baseUrl, anonKey: t.anonKey, retryCount: 0 });
  await client.realtime.connect();
  const received: Received[] = [];
  let wake: () => void = () => {};
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    client.realtime.on(event, (body: any) => {
      received.push({ event, body });
      wake();
    });
  }
  for (const channel of ['table:public.items', 'table:public.sentinel']) {
    expect((await client.realtime.subscribe(channel)).ok).toBe(true);
  }
  return {
    t,
    client,
    received,
    waitFor: (n) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `${t.config.realtimeChanges.mode}: ${received.length} of ${n} events arrived: ${JSON.stringify(received.slice(-10).map((r) => [r.event, r.body.new?.id, r.body.old?.id]))}`,
              ),
            ),
          20_000,
        );
        wake = () => {
          if (received.length < n) return;
          clearTimeout(timer);
          resolve();
        };
        wake();
      }),
    async close() {
      client.realtime.disconnect();
      await t.close();
    },
  };
}

/** What a client sees of an event, less what differs by nature between two runs (id, delivery time). */
const comparable = ({ event, body }: Received) => {
  const { messageId: _id, timestamp: _at, ...meta } = body.meta;
  return { event, body: { ...body, meta } };
};

async function captureStatus(t: TestApp) {
  const res = await t.request({ method: 'GET', url: '/api/realtime/change-capture', headers: bearer(t.apiKey) });
  expect(res.statusCode).toBe(200);
  return res.json;
}

const waitForLeader = (t: TestApp) =>
  pollUntil('the change capture leader', 20_000, async () => (await captureStatus(t)).role === 'leader');

let cluster: LogicalCluster;
const open: Listener[] = [];

beforeAll(async () => {
  cluster = await startLogicalCluster();
});
afterAll(async () => {
  for (const l of open) await l.close().catch(() => {});
  await cluster?.stop();
});

describe('logical change capture', { timeout: 120_000 }, () => {
  let logicalUrl: string;
  let logical: Listener;

  it('delivers the same events and payloads as triggers, with the same column filtering', async () => {
    const triggersUrl = await cluster.createDatabase();
    logicalUrl = await cluster.createDatabase();
    const triggers = await listener(triggersUrl, {}, ITEMS_DDL);
    open.push(triggers);
    logical = await listener(logicalUrl, LOGICAL, ITEMS_DDL);
    open.push(logical);
    await waitForLeader(logical.t);
    // In logical mode the table has no trigger: the slot is the only source.
    const [triggerCount] = await logical.t.deps.sql<{ n: number }[]>`
      select count(*)::int as n from pg_trigger where tgrelid = 'public.items'::regclass and tgname = 'realtime_changes'`;
    expect(triggerCount?.n).toBe(0);

    // One transaction each (the last holds two changes), each delivered before the next is made
    // (an INSERT or UPDATE reaches only those who still see the row at delivery); the row hidden
    // by RLS reaches no one, which the next event's arrival shows.
    const arrivedAfter = [1, 1, 2, 3, 5];
    for (const l of [triggers, logical]) {
      for (const [i, statement] of WRITES.entries()) {
        await l.t.deps.sql.begin((tx) => tx.unsafe(statement));
        if (i !== 1) await l.waitFor(arrivedAfter[i]!);
      }
    }
    expect(logical.received.map(comparable)).toEqual(triggers.received.map(comparable));
    expect(logical.received.map((r) => r.event)).toEqual(['INSERT', 'INSERT', 'UPDATE', 'UPDATE', 'DELETE']);
    const firstInsert = logical.received[0]!.body;
    expect(firstInsert.new.title_upper).toBe('A "QUOTED", \\ (COMMA)');
    expect(firstInsert.new.at).toBe('2024-05-06T05:08:09.123456+00:00');
    expect(firstInsert.new).not.toHaveProperty('blob'); // a column anon may not read
    // The UPDATE that left the TOASTed column alone still carries it whole, in new and old.
    expect(logical.received[2]!.body.new.big).toHaveLength(400 * 32);
    expect(logical.received[2]!.body.old.big).toHaveLength(400 * 32);
  });

  it('takes an unwatched table out of the publication: its changes stop', async () => {
    const t = logical.t;
    const res = await t.request({
      method: 'DELETE',
      url: '/api/realtime/watched-tables/public.items',
      headers: bearer(t.apiKey),
    });
    expect(res.statusCode).toBe(200);
    const [published] = await t.deps.sql<{ n: number }[]>`
      select count(*)::int as n from pg_publication_tables where pubname = 'plinth_realtime' and tablename = 'items'`;
    expect(published?.n).toBe(0);
    const before = logical.received.length;
    await t.deps.sql`insert into public.items (id, title) values (10, 'unwatched')`;
    await t.deps.sql`insert into public.sentinel values (1)`;
    await logical.waitFor(before + 1);
    expect(logical.received.slice(before).map((r) => r.body.table)).toEqual(['sentinel']);
    // Watched again, its changes flow again through the slot.
    const again = await t.request({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      headers: bearer(t.apiKey),
      payload: { table: 'public.items' },
    });
    expect(again.statusCode).toBe(201);
    await t.deps.sql`update public.items set title = 'watched again' where id = 10`;
    await logical.waitFor(before + 2);
    expect(logical.received.at(-1)?.body.new.title).toBe('watched again');
  });

  it('publishes transactions queued behind a stalled publish as one batch, across tables, in commit order', async () => {
    const t = logical.t;
    const before = logical.received.length;
    const blocker = postgres(logicalUrl, { max: 1, onnotice: () => {} });
    try {
      // The leader's publish waits on the lock; the transactions behind it queue and go out together.
      await blocker.begin(async (tx) => {
        await tx`lock table realtime.messages in access exclusive mode`;
        await t.deps.sql.begin(async (w) => {
          await w`insert into public.items (id, title) values (20, 'first')`;
          await w`insert into public.sentinel values (2)`;
        });
        await t.deps.sql`insert into public.sentinel values (3)`;
        await t.deps.sql.begin(async (w) => {
          await w`insert into public.items (id, title) values (21, 'x'), (22, 'y')`;
          await w`insert into public.sentinel values (4)`;
        });
        await t.deps.sql`update public.items set title = 'first, edited' where id = 20`;
        expect(logical.received.length).toBe(before);
      });
    } finally {
      await blocker.end();
    }
    await logical.waitFor(before + 7);
    expect(logical.received.slice(before).map((r) => [r.event, r.body.table, (r.body.new ?? r.body.old).id])).toEqual([
      ['INSERT', 'items', 20],
      ['INSERT', 'sentinel', 2],
      ['INSERT', 'sentinel', 3],
      ['INSERT', 'items', 21],
      ['INSERT', 'items', 22],
      ['INSERT', 'sentinel', 4],
      ['UPDATE', 'items', 20],
    ]);
    const update = logical.received.at(-1)!.body;
    expect(update.old).toMatchObject({ id: 20, title: 'first', title_upper: 'FIRST' });
    expect(update.new).toMatchObject({ id: 20, title: 'first, edited', title_upper: 'FIRST, EDITED' });
    expect(new Set(logical.received.slice(before).map((r) => r.body.meta.messageId)).size).toBe(7);
  });

  it('publishes a decoded commit only once other sessions see it (delivery checks the row as it is now)', async () => {
    const before = logical.received.length;
    // A commit held between its flushed record and its visibility: it waits for a synchronous
    // standby that never comes (only sessions asking for synchronous_commit=on wait).
    const admin = postgres(logicalUrl, { max: 1, onnotice: () => {} });
    const held = postgres(logicalUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`alter system set synchronous_standby_names = 'nobody'`);
      await admin.unsafe(`alter system set synchronous_commit = 'local'`);
      await admin`select pg_reload_conf()`;
      const [{ pid }] = (await held`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
      await held`set synchronous_commit = on`;
      const insert = held`insert into public.sentinel values (50)`.catch(() => undefined);
      await pollUntil('the commit waiting for the standby', 20_000, async () => {
        const [row] = await admin<
          { event: string | null }[]
        >`select wait_event as event from pg_stat_activity where pid = ${pid}`;
        return row?.event === 'SyncRep';
      });
      // Decoded by now (its record is flushed): the leader holds its publishing until the row is
      // visible (before, the message went out at once and the delivery check found no row).
      await pollUntil('the leader to hold its publishing, or publish', 20_000, async () => {
        const [row] = await admin<{ waiting: boolean; stored: boolean }[]>`
          select exists (select from pg_stat_activity where application_name = 'plinth-change-capture-leader'
              and wait_event = 'PgSleep') as waiting,
            exists (select from realtime.messages where channel_name = 'table:public.sentinel:50') as stored`;
        return row?.waiting || row?.stored;
      });
      await admin`select pg_cancel_backend(${pid})`; // "already committed locally": visible now
      await insert;
    } finally {
      await admin.unsafe('alter system reset synchronous_standby_names');
      await admin.unsafe('alter system reset synchronous_commit');
      await admin`select pg_reload_conf()`;
      await held.end();
      await admin.end();
    }
    await logical.t.deps.sql`insert into public.sentinel values (51)`;
    await logical.waitFor(before + 2).catch(() => undefined);
    expect(logical.received.slice(before).map((r) => r.body.new.id)).toEqual([50, 51]);
  });

  it('publishes a transaction of 2,500 changes (past one statement) whole and in order', async () => {
    const before = logical.received.length;
    await logical.t.deps.sql`insert into public.sentinel select generate_series(1000, 3499)`;
    await logical.waitFor(before + 2_500);
    const ids = logical.received.slice(before).map((r) => r.body.new.id);
    expect(ids).toEqual(Array.from({ length: 2_500 }, (_, i) => 1000 + i));
  });

  it('delivers changes written while no server led, once, when one takes the lead', async () => {
    const slotBefore = (await captureStatus(logical.t)).slot;
    await logical.close();
    open.splice(open.indexOf(logical), 1);
    // The test holds the lead, so the next server follows while rows are written.
    const holder = postgres(logicalUrl, { max: 2, onnotice: () => {} });
    try {
      const reserved = await holder.reserve();
      await reserved`select pg_advisory_lock(hashtext(${CAPTURE_LOCK}))`;
      for (let i = 100; i < 120; i++) await holder`insert into public.sentinel values (${i})`;
      const next = await listener(logicalUrl, LOGICAL);
      open.push(next);
      expect((await captureStatus(next.t)).role).toBe('follower');
      await holder`insert into public.sentinel values (120)`;
      expect(next.received).toEqual([]);
      await reserved`select pg_advisory_unlock(hashtext(${CAPTURE_LOCK}))`;
      reserved.release();
      await next.waitFor(21);
      expect(next.received.map((r) => r.body.new.id)).toEqual(Array.from({ length: 21 }, (_, i) => 100 + i));
      expect(new Set(next.received.map((r) => r.body.meta.messageId)).size).toBe(21);
      const status = await captureStatus(next.t);
      expect(status).toMatchObject({ role: 'leader', slot: slotBefore, slotActive: true, published: 21 });
      logical = next;
    } finally {
      await holder.end();
    }
  });

  it('shows the WAL a consumer that stopped confirming retains, and warns', async () => {
    const url = await cluster.createDatabase();
    const l = await listener(url, { ...LOGICAL, REALTIME_CHANGES_WAL_WARN_BYTES: String(1024 * 1024) }, ITEMS_DDL);
    open.push(l);
    await waitForLeader(l.t);
    const metric = async (name: string) => {
      const res = await l.t.request({ method: 'GET', url: '/metrics', headers: bearer(l.t.apiKey) });
      const line = res.body.split('\n').find((x: string) => x.startsWith(`${name} `));
      return Number(line?.split(' ')[1]);
    };
    const blocker = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // The leader cannot publish (so confirms nothing) while realtime.messages is locked.
      const stuck = blocker.begin(async (tx) => {
        await tx`lock table realtime.messages in access exclusive mode`;
        // One watched change the leader cannot publish, then WAL of an unwatched table behind it.
        await l.t.deps.sql`insert into public.sentinel values (1)`;
        await l.t.deps.sql`create table public.bulk as
          select i, (select string_agg(md5((i * j)::text), '') from generate_series(1, 64) j) as filler
          from generate_series(1, 3000) i`;
        // The slot cannot move past the unpublished transaction: the WAL since its start stays.
        let retained = 0;
        await pollUntil('retained WAL over 2 MB', 20_000, async () => {
          retained = await metric('plinth_realtime_changes_retained_wal_bytes');
          return retained > 2 * 1024 * 1024;
        }).catch((err) => {
          throw new Error(`${err.message}: ${retained}`);
        });
        const ready = await l.t.request({ method: 'GET', url: '/api/health/ready' });
        expect(ready.statusCode).toBe(200);
        expect(ready.json.warnings?.join(' ')).toMatch(/retains \d+ bytes of WAL/);
      });
      await stuck;
      await l.waitFor(1);
      await pollUntil(
        'the slot confirmed again',
        20_000,
        async () => (await metric('plinth_realtime_changes_unconfirmed_wal_bytes')) < 1024 * 1024,
      );
      expect(await metric('plinth_realtime_changes_leader')).toBe(1);
    } finally {
      await blocker.end();
    }
  });

  it('puts triggers back and drops the slot when a database returns to triggers mode', async () => {
    const slot = (await captureStatus(logical.t)).slot as string;
    await logical.close();
    open.splice(open.indexOf(logical), 1);
    const back = await listener(logicalUrl, {});
    open.push(back);
    const [state] = await back.t.deps.sql<{ triggers: number; slots: number; published: number; identity: string }[]>`
      select (select count(*)::int from pg_trigger where tgname = 'realtime_changes') as triggers,
        (select count(*)::int from pg_replication_slots where slot_name = ${slot}) as slots,
        (select count(*)::int from pg_publication_tables where pubname = 'plinth_realtime') as published,
        (select relreplident::text from pg_class where oid = 'public.items'::regclass) as identity`;
    expect(state).toEqual({ triggers: 2, slots: 0, published: 0, identity: 'd' });
    await back.t.deps.sql`insert into public.items (id, title) values (200, 'by trigger')`;
    await back.waitFor(1);
    expect(back.received[0]?.body.new.title).toBe('by trigger');
  });
});
