// The official JavaScript client's database module (its bundled postgrest-js 1.x, routed to
// /api/database/records and /api/database/rpc) against a listening Plinth, with row-level
// security written on auth.uid(): each signed-in client sees and changes only its own rows.
import { randomBytes } from 'node:crypto';
import { createAdminClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
let alice: InsForgeClient;
let bob: InsForgeClient;
let aliceId = '';

async function signedIn(): Promise<{ client: InsForgeClient; id: string; refreshToken: string }> {
  const client = s.client({ isServerMode: true });
  const { data, error } = await client.auth.signUp({
    email: `db-${randomBytes(4).toString('hex')}@example.com`,
    password: 'sdk-password-1',
  });
  if (error) throw error;
  return { client, id: data!.user!.id, refreshToken: data!.refreshToken! };
}

beforeAll(async () => {
  s = await startSdkApp();
  // The developer's schema, as a migration would create it.
  await s.t.deps.sql.unsafe(`
    create table public.todos (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      title text not null,
      done boolean not null default false,
      shared boolean not null default false
    );
    create policy owner_all on public.todos for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create policy shared_read on public.todos for select to anon, authenticated using (shared);
    create table public.tags (id int primary key, todo_id bigint references public.todos (id) on delete cascade, label text not null);
    create policy tags_via_todo on public.tags for all to authenticated
      using (exists (select 1 from public.todos t where t.id = todo_id and t.owner = auth.uid()))
      with check (exists (select 1 from public.todos t where t.id = todo_id and t.owner = auth.uid()));
    create function public.add_numbers(a int, b int) returns int language sql immutable as $$ select a + b $$;
    create function public.my_open_todos() returns setof public.todos language sql stable
      as $$ select * from public.todos where not done order by id $$;
  `);
  const a = await signedIn();
  alice = a.client;
  aliceId = a.id;
  bob = (await signedIn()).client;
});
afterAll(() => s.close());

describe('from(table)', () => {
  it('insert(...).select() returns the created rows with 201; owner defaults to auth.uid()', async () => {
    const { data, error, status } = await alice.database
      .from('todos')
      .insert([{ title: 'write tests' }, { title: 'ship', shared: true }, { title: 'rest' }], { defaultToNull: false })
      .select();
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toEqual([
      { id: expect.any(Number), owner: aliceId, title: 'write tests', done: false, shared: false },
      { id: expect.any(Number), owner: aliceId, title: 'ship', done: false, shared: true },
      { id: expect.any(Number), owner: aliceId, title: 'rest', done: false, shared: false },
    ]);
  });

  it('an array insert with differing keys fills the gaps with null unless defaultToNull is false (as PostgREST)', async () => {
    // postgrest-js sends ?columns=… for arrays; without Prefer: missing=default a missing key is null.
    const { data, error, status } = await alice.database
      .from('todos')
      .insert([{ title: 'a' }, { title: 'b', shared: true }]);
    expect(data).toBeNull();
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: '23502', message: expect.stringContaining('shared') });
  });

  it('insert of a single object without select(): 201 and no body', async () => {
    const { data, error, status } = await bob.database.from('todos').insert({ title: 'bob only' });
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toBeNull();
  });

  it('select with eq, order and range sees only what the policies allow', async () => {
    const mine = await alice.database.from('todos').select('title').order('id', { ascending: false });
    expect(mine.error).toBeNull();
    expect(mine.data).toEqual([{ title: 'rest' }, { title: 'ship' }, { title: 'write tests' }]);

    const page = await alice.database.from('todos').select('title', { count: 'exact' }).order('id').range(1, 2);
    expect(page.error).toBeNull();
    expect(page.data).toEqual([{ title: 'ship' }, { title: 'rest' }]);
    expect(page.count).toBe(3);

    const bobs = await bob.database.from('todos').select('title').order('id');
    expect(bobs.data).toEqual([{ title: 'ship' }, { title: 'bob only' }]);

    const anon = await s.client().database.from('todos').select('title, shared');
    expect(anon.error).toBeNull();
    expect(anon.data).toEqual([{ title: 'ship', shared: true }]);

    const filtered = await alice.database.from('todos').select('title').eq('shared', false).order('title');
    expect(filtered.data).toEqual([{ title: 'rest' }, { title: 'write tests' }]);
  });

  it('single() returns one object; no row is a PGRST116 error; head count works', async () => {
    const one = await alice.database.from('todos').select('title').eq('title', 'ship').single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ title: 'ship' });

    const none = await bob.database.from('todos').select('*').eq('title', 'rest').single();
    expect(none.data).toBeNull();
    expect(none.status).toBe(406);
    expect(none.error).toMatchObject({ code: 'PGRST116' });

    const maybe = await bob.database.from('todos').select('*').eq('title', 'rest').maybeSingle();
    expect(maybe.error).toBeNull();
    expect(maybe.data).toBeNull();

    const head = await alice.database.from('todos').select('*', { count: 'exact', head: true });
    expect(head.error).toBeNull();
    expect(head.count).toBe(3);
  });

  it("update().eq().select() changes own rows only; another user's update matches nothing", async () => {
    const updated = await alice.database
      .from('todos')
      .update({ done: true })
      .eq('title', 'write tests')
      .select('title, done');
    expect(updated.error).toBeNull();
    expect(updated.data).toEqual([{ title: 'write tests', done: true }]);

    const foreign = await bob.database.from('todos').update({ done: true }).eq('title', 'ship').select();
    expect(foreign.error).toBeNull();
    expect(foreign.data).toEqual([]);
    const still = await alice.database.from('todos').select('done').eq('title', 'ship').single();
    expect(still.data).toEqual({ done: false });
  });

  it('delete().eq() removes own rows; a delete without any filter is refused with 400', async () => {
    const removed = await alice.database.from('todos').delete().eq('title', 'rest').select('title');
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual([{ title: 'rest' }]);

    // Plinth decision (api-contract A.7): an unfiltered DELETE/PATCH never wipes a table.
    const unfiltered = await alice.database.from('todos').delete();
    expect(unfiltered.status).toBe(400);
    expect(unfiltered.error).toMatchObject({ message: expect.any(String) });
    const left = await alice.database.from('todos').select('title').order('id');
    expect(left.data).toEqual([{ title: 'write tests' }, { title: 'ship' }]);
  });

  it('an unknown table is an error the client reports with PostgREST fields', async () => {
    const { data, error, status } = await alice.database.from('no_such_table').select();
    expect(data).toBeNull();
    expect(status).toBe(404);
    expect(error).toMatchObject({ code: 'PGRST205', message: expect.stringContaining('no_such_table') });
  });
});

describe('more of the query builder', () => {
  it('or / in / ilike / not / limit filters', async () => {
    const db = alice.database;
    expect((await db.from('todos').select('title').or('title.eq.ship,done.eq.true').order('id')).data).toEqual([
      { title: 'write tests' },
      { title: 'ship' },
    ]);
    expect((await db.from('todos').select('title').in('title', ['ship', 'nope'])).data).toEqual([{ title: 'ship' }]);
    expect((await db.from('todos').select('title').ilike('title', 'WRITE%')).data).toEqual([{ title: 'write tests' }]);
    expect((await db.from('todos').select('title').not('done', 'is', true).order('id')).data).toEqual([
      { title: 'ship' },
    ]);
    expect((await db.from('todos').select('title').order('id').limit(1)).data).toEqual([{ title: 'write tests' }]);
  });

  it('upsert inserts, then merges on the primary key; embeds follow the foreign key', async () => {
    const ship = await alice.database.from('todos').select('id').eq('title', 'ship').single();
    const todoId = (ship.data as { id: number }).id;
    const inserted = await alice.database.from('tags').upsert({ id: 1, todo_id: todoId, label: 'urgent' }).select();
    expect(inserted.error).toBeNull();
    expect(inserted.data).toEqual([{ id: 1, todo_id: todoId, label: 'urgent' }]);
    const merged = await alice.database.from('tags').upsert({ id: 1, todo_id: todoId, label: 'later' }).select('label');
    expect(merged.error).toBeNull();
    expect(merged.data).toEqual([{ label: 'later' }]);

    const embedded = await alice.database.from('todos').select('title, tags(label)').eq('id', todoId).single();
    expect(embedded.error).toBeNull();
    expect(embedded.data).toEqual({ title: 'ship', tags: [{ label: 'later' }] });
    // Bob may read the shared todo but not its tags (the policy follows the todo's owner).
    const bobView = await bob.database.from('todos').select('title, tags(label)').eq('id', todoId).single();
    expect(bobView.data).toEqual({ title: 'ship', tags: [] });
  });
});

describe('createAdminClient({ apiKey })', () => {
  it('the API key reads every row, whoever owns it', async () => {
    const admin = createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey, retryCount: 0 });
    const { data, error } = await admin.database.from('todos').select('title').order('id');
    expect(error).toBeNull();
    expect(data).toEqual([{ title: 'write tests' }, { title: 'ship' }, { title: 'bob only' }]);
  });
});

describe('rpc(fn, args)', () => {
  it('calls a function with named arguments', async () => {
    const { data, error } = await alice.database.rpc('add_numbers', { a: 2, b: 40 });
    expect(error).toBeNull();
    expect(data).toBe(42);
  });

  it('a set-returning function runs under the caller: row-level security applies', async () => {
    const mine = await alice.database.rpc('my_open_todos').select('title');
    expect(mine.error).toBeNull();
    expect(mine.data).toEqual([{ title: 'ship' }]);
    const anon = await s.client().database.rpc('my_open_todos');
    expect((anon.data as { title: string }[]).map((r) => r.title)).toEqual(['ship']);
  });
});

describe('expired access token', () => {
  it('a records call answers 401 AUTH_UNAUTHORIZED; after refreshSession the same query works', async () => {
    const { client, refreshToken } = await signedIn();
    s.t.clock.advance(16 * 60_000);
    const expired = await client.database.from('todos').select('id');
    // AUTH_UNAUTHORIZED (api-contract item 14), but a server-mode client never refreshes by itself:
    // the app does (session-refresh.test.ts covers the client's own refresh).
    expect(expired.status).toBe(401);
    expect(expired.error).toMatchObject({ message: expect.any(String) });
    const refreshed = await client.auth.refreshSession({ refreshToken });
    expect(refreshed.error).toBeNull();
    const again = await client.database.from('todos').select('id');
    expect(again.error).toBeNull();
  });
});
