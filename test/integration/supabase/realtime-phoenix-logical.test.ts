// Supabase Realtime's postgres_changes through @supabase/supabase-js (Phoenix, ws transport) while
// the server reads table changes from logical replication (REALTIME_CHANGES=logical), on a
// PostgreSQL cluster of this file's own with wal_level=logical: tables opted in by migrations
// (`alter publication supabase_realtime add table …`, one before the server leads, one after)
// deliver INSERT, UPDATE (with old) and DELETE (the old row) to the subscribers RLS lets see the
// row, without the columns they may not read, decoded from the slot (the tables have no trigger).
import { readFileSync } from 'node:fs';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../harness/free-port.js';
import { type LogicalCluster, startLogicalCluster } from '../../harness/logical-postgres.js';
import { pollUntil } from '../../harness/server-process.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let cluster: LogicalCluster;
let t: TestApp;
let baseUrl: string;
const clients: SupabaseClient[] = [];
const WAIT = 20_000;

beforeAll(async () => {
  cluster = await startLogicalCluster();
  t = await startTestApp({
    databaseUrl: await cluster.createDatabase(),
    env: { REALTIME_CHANGES: 'logical', REALTIME_CHANGES_LEADER_POLL_MS: '100' },
  });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${port}`;
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.removeAllChannels();
  await t?.close();
  await cluster?.stop();
});

/** A supabase-js client signed in as supabase-js does it (realtime.setAuth(access token)). */
function sb(token: string) {
  const client = createClient(baseUrl, t.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
    accessToken: async () => token,
  });
  void client.realtime.setAuth(token);
  clients.push(client);
  return client;
}

/** Subscribes; resolves once the server said "Subscribed to PostgreSQL" (its tables are watched). */
function subscribed(channel: RealtimeChannel, system: any[]): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.on('system', {}, (p) => {
      system.push(p);
      if (p.message === 'Subscribed to PostgreSQL') resolve();
      else if (p.status === 'error') reject(new Error(JSON.stringify(p)));
    });
    channel.subscribe((status, err) => {
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    });
  });
}

const until = <T>(what: string, check: () => T | undefined | false) => pollUntil(what, WAIT, check, 10);

async function migrate(version: string, sql: string) {
  const res = await t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: { 'x-api-key': t.apiKey },
    payload: { version, name: `supabase-realtime-${version}`, sql },
  });
  expect(res.statusCode, JSON.stringify(res.json)).toBe(201);
}

async function user() {
  const s = await t.signUp();
  return { id: s.user.id as string, token: s.accessToken as string };
}

const triggersOn = async (table: string) => {
  const [row] = await t.deps.sql<{ n: number }[]>`
    select count(*)::int as n from pg_trigger where tgrelid = ${table}::regclass and tgname = 'realtime_changes'`;
  return row?.n;
};

describe('postgres_changes with REALTIME_CHANGES=logical', { timeout: 120_000 }, () => {
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };

  /** Alice and Bob each subscribed to every change of `public.<table>`; what each receives. */
  async function subscribeBoth(channel: string, table: string) {
    const seen = { alice: [] as any[], bob: [] as any[] };
    for (const [name, who] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      const ch = sb(who.token)
        .channel(`${channel}-${name}`)
        .on('postgres_changes', { event: '*', schema: 'public', table }, (p) => seen[name].push(p));
      await subscribed(ch, []);
    }
    return seen;
  }

  it('leads change capture, and applies the Supabase chat migration as is', async () => {
    await pollUntil('the change capture leader', WAIT, async () => {
      const res = await t.request({ method: 'GET', url: '/api/realtime/change-capture', headers: bearer(t.apiKey) });
      return res.json.role === 'leader' && res.json.slotActive === true;
    });
    await migrate('20990101000001', readFileSync('test/fixtures/supabase/realtime-chat.sql', 'utf8'));
    [alice, bob] = [await user(), await user()];
    await t.deps.sql`insert into public.rooms (id) values ('r1'), ('r2')`;
    await t.deps.sql`insert into public.room_members (room_id, user_id) values ('r1', ${alice.id}), ('r2', ${bob.id})`;
  });

  it('delivers INSERT, UPDATE with old and DELETE with the old row, to those RLS lets see the row', async () => {
    const seen = await subscribeBoth('changes', 'messages');
    // Watched on the first subscription, through the publication: no trigger, decoded from the slot.
    expect(await triggersOn('public.messages')).toBe(0);
    const [inPublication] = await t.deps.sql<{ n: number }[]>`
      select count(*)::int as n from pg_publication_tables where pubname = 'plinth_realtime' and tablename = 'messages'`;
    expect(inPublication?.n).toBe(1);

    // Each event waited for before the next write: an INSERT or UPDATE reaches only those who still
    // see the row when it is delivered (visibility is checked then, as in trigger mode).
    await t.deps.sql`insert into public.messages (room_id, user_id, content, score, moderator_note) values
      ('r1', ${alice.id}, 'for r1', 1, 'hidden'), ('r2', ${bob.id}, 'for r2', 2, 'hidden')`;
    await until('alice sees her INSERT', () => seen.alice.length === 1);
    const [edited] = await t.deps.sql<{ id: string }[]>`
      update public.messages set content = 'edited', score = 3 where room_id = 'r1' returning id`;
    const id = Number(edited!.id);
    await until('alice sees the UPDATE', () => seen.alice.length === 2);
    await t.deps.sql`delete from public.messages where id = ${id}`;
    await t.deps.sql`insert into public.messages (room_id, user_id, content) values ('r2', ${bob.id}, 'last')`;
    await until('bob sees his two INSERTs', () => seen.bob.length === 2);
    await until('alice sees the DELETE', () => seen.alice.length === 3);

    expect(seen.alice.map((p) => p.eventType)).toEqual(['INSERT', 'UPDATE', 'DELETE']);
    const [insert, update, del] = seen.alice;
    expect(insert).toMatchObject({
      schema: 'public',
      table: 'messages',
      new: { id, room_id: 'r1', user_id: alice.id, content: 'for r1', score: 1 },
    });
    expect(typeof insert.new.id).toBe('number');
    expect(insert.new.created_at).toEqual(expect.any(String));
    expect(insert.commit_timestamp).toEqual(expect.any(String));
    expect(update).toMatchObject({
      new: { id, content: 'edited', score: 3 },
      old: { id, content: 'for r1', score: 1 },
    });
    expect(del).toMatchObject({ eventType: 'DELETE', old: { id, content: 'edited', score: 3 }, new: {} });
    // Column rights apply to decoded rows as to the trigger's: the moderator's note reaches no one.
    for (const p of [...seen.alice, ...seen.bob]) {
      expect(p.new).not.toHaveProperty('moderator_note');
      expect(p.old).not.toHaveProperty('moderator_note');
    }
    expect(seen.bob.map((p) => [p.eventType, p.new.content])).toEqual([
      ['INSERT', 'for r2'],
      ['INSERT', 'last'],
    ]);
  });

  it('delivers changes of a table a later migration adds to supabase_realtime', async () => {
    await migrate(
      '20990101000002',
      `create table public.notes (
         id uuid primary key default gen_random_uuid(),
         owner uuid not null default auth.uid(),
         body text not null,
         tags text[] not null default '{}',
         edited_at timestamptz);
       alter table public.notes enable row level security;
       create policy "owners read notes" on public.notes for select to authenticated using (owner = auth.uid());
       grant select on public.notes to authenticated;
       alter publication supabase_realtime add table public.notes;`,
    );
    const seen = await subscribeBoth('notes', 'notes');
    expect(await triggersOn('public.notes')).toBe(0);
    const [note] = await t.deps.sql<{ id: string }[]>`
      insert into public.notes (owner, body, tags) values (${alice.id}, 'a "note", with (commas)', '{x,"y z"}') returning id`;
    await until('alice sees her note', () => seen.alice.length === 1);
    await t.deps
      .sql`update public.notes set body = 'changed', edited_at = '2030-01-02 03:04:05+00' where id = ${note!.id}`;
    await until('alice sees her note changed', () => seen.alice.length === 2);
    await t.deps.sql`delete from public.notes where id = ${note!.id}`;
    await t.deps.sql`insert into public.notes (owner, body) values (${bob.id}, 'bob''s')`;
    await until('bob sees his note', () => seen.bob.length === 1);
    await until('alice sees the DELETE', () => seen.alice.length === 3);
    expect(seen.alice.map((p) => p.eventType)).toEqual(['INSERT', 'UPDATE', 'DELETE']);
    expect(seen.alice[0].new).toEqual({
      id: note!.id,
      owner: alice.id,
      body: 'a "note", with (commas)',
      tags: ['x', 'y z'],
      edited_at: null,
    });
    expect(seen.alice[1]).toMatchObject({
      new: { body: 'changed', edited_at: '2030-01-02T03:04:05+00:00' },
      old: { body: 'a "note", with (commas)' },
    });
    expect(seen.alice[2]).toMatchObject({ old: { id: note!.id, body: 'changed' } });
    expect(seen.bob[0]).toMatchObject({ eventType: 'INSERT', new: { owner: bob.id, body: "bob's" } });
    const status = await t.request({ method: 'GET', url: '/api/realtime/change-capture', headers: bearer(t.apiKey) });
    expect(status.json).toMatchObject({ mode: 'logical', role: 'leader', skipped: 0 });
    expect(status.json.published).toBeGreaterThanOrEqual(8);
  });
});
