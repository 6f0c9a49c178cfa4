// Table changes through the official client's realtime module: an admin watches a table with an
// owner-only SELECT policy; alice and bob subscribe to the table's channel and to one row's
// channel, and each receives a row's INSERT/UPDATE/DELETE only while RLS lets them see the row
// (a row handed to bob leaves alice's stream and enters bob's). realtime.watch_table from SQL too.
import { randomUUID } from 'node:crypto';
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
const clients: InsForgeClient[] = [];

beforeAll(async () => {
  s = await startSdkApp({ env: { REALTIME_HEARTBEAT_MS: '3600000' } });
  await s.t.deps.sql.unsafe(`
    create table public.todos (id uuid primary key, owner uuid not null, title text not null);
    alter table public.todos enable row level security;
    create policy todos_owner on public.todos for select using (owner = auth.uid());
    grant select on public.todos to authenticated;
    revoke all on public.todos from anon;
    create table public.notes_log (id bigint generated always as identity primary key, body text);
    create table public.no_key (body text);`);
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await s.close();
});

interface Seen {
  event: string;
  channel: string;
  body: any;
}

async function subscriber(channels: string[]) {
  const user = await s.t.signUp();
  const client = s.client({ accessToken: user.accessToken });
  clients.push(client);
  await client.realtime.connect();
  const seen: Seen[] = [];
  const waiters: { match: (e: Seen) => boolean; resolve: (e: Seen) => void }[] = [];
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    client.realtime.on(event, (body: any) => {
      const entry = { event, channel: body.meta.channel, body };
      seen.push(entry);
      for (const w of waiters.splice(0)) {
        if (w.match(entry)) w.resolve(entry);
        else waiters.push(w);
      }
    });
  }
  for (const channel of channels) expect((await client.realtime.subscribe(channel)).ok).toBe(true);
  const next = (match: (e: Seen) => boolean) =>
    new Promise<Seen>((resolve) => {
      const found = seen.find(match);
      if (found) resolve(found);
      else waiters.push({ match, resolve });
    });
  return { id: user.user.id as string, seen, next };
}

const sql = () => s.t.deps.sql;

describe('watched tables', () => {
  it('watches a table through the admin route and lists it; refuses a table without a primary key', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { table: 'public.todos' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json).toMatchObject({
      table: 'public.todos',
      keyColumns: ['id'],
      tableChannel: 'table:public.todos',
      rowChannel: 'table:public.todos:<key>',
    });
    const list = await s.t.request({
      method: 'GET',
      url: '/api/realtime/watched-tables',
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(list.json.map((t: any) => t.table)).toEqual(['public.todos']);
    const refused = await s.t.request({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { table: 'public.no_key' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json.error).toBe('REALTIME_TABLE_NOT_WATCHABLE');
    const missing = await s.t.request({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { table: 'public.nope' },
    });
    expect(missing.statusCode).toBe(400);
  });

  it('delivers a row change only to subscribers who may SELECT the row at delivery time', async () => {
    const rowId = randomUUID();
    const rowChannel = `table:public.todos:${rowId}`;
    // First in the room, so checked first: anon may not read the table at all (its query fails
    // with permission denied), which must not cost the subscribers checked after it.
    const stranger = s.client();
    clients.push(stranger);
    await stranger.realtime.connect();
    const strangerSaw: string[] = [];
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) stranger.realtime.on(event, () => strangerSaw.push(event));
    expect((await stranger.realtime.subscribe('table:public.todos')).ok).toBe(true);
    const alice = await subscriber(['table:public.todos', rowChannel]);
    const bob = await subscriber(['table:public.todos', rowChannel]);
    const onTable = (event: string, title: string) => (e: Seen) =>
      e.event === event && e.channel === 'table:public.todos' && (e.body.new ?? e.body.old)?.title === title;

    await sql()`insert into public.todos (id, owner, title) values (${rowId}, ${alice.id}, 'first')`;
    const onRow = (event: string, title: string) => (e: Seen) =>
      e.event === event && e.channel === rowChannel && (e.body.new ?? e.body.old)?.title === title;
    const inserted = await alice.next(onTable('INSERT', 'first'));
    expect(inserted.body).toMatchObject({
      type: 'INSERT',
      schema: 'public',
      table: 'todos',
      new: { id: rowId, owner: alice.id, title: 'first' },
      old: null,
      meta: { channel: 'table:public.todos', senderType: 'system' },
    });
    await alice.next(onRow('INSERT', 'first'));

    await sql()`update public.todos set title = 'second' where id = ${rowId}`;
    const updated = await alice.next(onTable('UPDATE', 'second'));
    expect(updated.body).toMatchObject({ new: { title: 'second' }, old: { title: 'first' } });
    await alice.next(onRow('UPDATE', 'second'));

    // Handed to bob: it leaves alice's stream and enters bob's, without the old row he could not see.
    await sql()`update public.todos set owner = ${bob.id}, title = 'bobs' where id = ${rowId}`;
    const handed = await bob.next(onTable('UPDATE', 'bobs'));
    expect(handed.body).toMatchObject({ new: { owner: bob.id, title: 'bobs' }, old: null });
    await bob.next(onRow('UPDATE', 'bobs'));

    // Back to alice, then deleted.
    await sql()`update public.todos set owner = ${alice.id}, title = 'back' where id = ${rowId}`;
    await alice.next(onTable('UPDATE', 'back'));
    await alice.next(onRow('UPDATE', 'back'));
    await sql()`delete from public.todos where id = ${rowId}`;
    const deleted = await alice.next((e) => e.event === 'DELETE' && e.channel === 'table:public.todos');
    expect(deleted.body).toMatchObject({
      type: 'DELETE',
      new: null,
      old: { id: rowId, owner: alice.id, title: 'back' },
    });
    await alice.next((e) => e.event === 'DELETE' && e.channel === rowChannel);

    // A barrier: bob's own row; everything before it was delivered (one server, in order).
    await sql()`insert into public.todos (id, owner, title) values (${randomUUID()}, ${bob.id}, 'barrier')`;
    await bob.next(onTable('INSERT', 'barrier'));
    await alice.next(() => true);

    const titles = (seen: Seen[], channel: string) =>
      seen.filter((e) => e.channel === channel).map((e) => `${e.event}:${(e.body.new ?? e.body.old).title}`);
    expect(titles(alice.seen, 'table:public.todos')).toEqual([
      'INSERT:first',
      'UPDATE:second',
      'UPDATE:back',
      'DELETE:back',
    ]);
    expect(titles(alice.seen, rowChannel)).toEqual(['INSERT:first', 'UPDATE:second', 'UPDATE:back', 'DELETE:back']);
    expect(titles(bob.seen, 'table:public.todos')).toEqual(['UPDATE:bobs', 'INSERT:barrier']);
    expect(titles(bob.seen, rowChannel)).toEqual(['UPDATE:bobs']);
    expect(strangerSaw).toEqual([]);
  });

  it('watches from SQL (identity keys too) and stops with the admin route', async () => {
    const [row] = await sql()`select realtime.watch_table('public.notes_log') as channel`;
    expect(row!.channel).toBe('table:public.notes_log');
    await sql()`grant select on public.notes_log to authenticated`;
    await sql()`alter table public.notes_log enable row level security`;
    await sql()`create policy notes_all on public.notes_log for select using (true)`;
    const carol = await subscriber(['table:public.notes_log']);
    await sql()`insert into public.notes_log (body) values ('hello')`;
    await sql()`delete from public.notes_log where body = 'hello'`;
    const gone = await carol.next((e) => e.event === 'DELETE');
    expect(gone.body.old).toMatchObject({ body: 'hello' });
    const stop = await s.t.request({
      method: 'DELETE',
      url: '/api/realtime/watched-tables/public.notes_log',
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(stop.statusCode).toBe(200);
    const again = await s.t.request({
      method: 'DELETE',
      url: '/api/realtime/watched-tables/public.notes_log',
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(again.statusCode).toBe(404);
    const nonsense = await s.t.request({
      method: 'DELETE',
      url: `/api/realtime/watched-tables/${encodeURIComponent('not a "name')}`,
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(nonsense.statusCode).toBe(404);
    const badWatch = await s.t.request({
      method: 'POST',
      url: '/api/realtime/watched-tables',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { table: 'not a "name' },
    });
    expect(badWatch.statusCode).toBe(400);
    const [trigger] =
      await sql()`select count(*)::int as n from pg_trigger where tgname = 'realtime_changes' and tgrelid = 'public.notes_log'::regclass`;
    expect(trigger!.n).toBe(0);
  });
});

describe('meta.channel', () => {
  it('is the name the app subscribed with in every message type: broadcast, table change, presence', async () => {
    const opened = await s.t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { pattern: 'room:%' },
    });
    expect(opened.statusCode).toBe(201);
    const alice = await s.t.signUp();
    const client = s.client({ accessToken: alice.accessToken });
    const bob = s.client({ accessToken: (await s.t.signUp()).accessToken });
    clients.push(client, bob);
    const heard = (event: string) => new Promise<any>((resolve) => client.realtime.on(event, resolve));
    const joined = heard('presence:join');
    const broadcast = heard('greeting');
    const change = heard('INSERT');
    expect((await client.realtime.subscribe('room:meta')).ok).toBe(true);
    expect((await client.realtime.subscribe('table:public.todos')).ok).toBe(true);
    expect((await bob.realtime.subscribe('room:meta')).ok).toBe(true);
    await bob.realtime.publish('room:meta', 'greeting', { text: 'hi' });
    await sql()`insert into public.todos (id, owner, title) values (${randomUUID()}, ${alice.user.id}, 'meta')`;

    expect((await joined).meta.channel).toBe('room:meta');
    expect((await broadcast).meta.channel).toBe('room:meta');
    expect((await change).meta.channel).toBe('table:public.todos');
  });
});
