// supabase-js 2.119.1 against /rest/v1 with only the URL and the key changed: the quickstart's
// calls on the todo-list migration of test/fixtures/supabase (applied as is), users isolated by
// RLS, the anon and service_role keys, rpc(), and the answers PostgREST gives where Plinth's own
// records API answers otherwise (a missing foreign key: 409 here, 400 there).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { applyFixture, supabaseClient } from './rest-harness.js';

let t: TestApp;
let url: string;
type Client = ReturnType<typeof supabaseClient>;
let alice: { id: string; token: string; db: Client };
let bob: { id: string; token: string; db: Client };
let anon: Client;
let service: Client;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await applyFixture(t, '20240101000000_profiles.sql');
  await applyFixture(t, '20240101000100_todos.sql');
  const a = await t.signUp();
  const b = await t.signUp();
  alice = { id: a.user.id, token: a.accessToken, db: supabaseClient(url, t.anonKey, a.accessToken) };
  bob = { id: b.user.id, token: b.accessToken, db: supabaseClient(url, t.anonKey, b.accessToken) };
  anon = supabaseClient(url, t.anonKey);
  service = supabaseClient(url, t.apiKey);
});
afterAll(() => t.close());

describe('the quickstart flows', () => {
  const ids: number[] = [];

  it('insert().select() creates the rows as their owner (201, the rows back)', async () => {
    const { data, error, status } = await alice.db
      .from('todos')
      .insert([{ task: 'buy milk' }, { task: 'walk the dog' }, { task: 'write tests' }])
      .select();
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toHaveLength(3);
    for (const row of data!) {
      expect(row).toMatchObject({ user_id: alice.id, is_complete: false });
      // extensions.uuid_generate_v4(), from the migration's "uuid-ossp" in the extensions schema
      expect(row.public_ref).toMatch(/^[0-9a-f-]{36}$/);
      ids.push(row.id);
    }
    const bobs = await bob.db.from('todos').insert({ task: 'bob only' }).select().single();
    expect(bobs.error).toBeNull();
    expect(bobs.data).toMatchObject({ task: 'bob only', user_id: bob.id });
  });

  it('filters, order and range, with the count read from Content-Range', async () => {
    const { data, count, status, error } = await alice.db
      .from('todos')
      .select('*', { count: 'exact' })
      .eq('is_complete', false)
      .order('id', { ascending: false })
      .range(0, 1);
    expect(error).toBeNull();
    expect(status).toBe(206);
    expect(count).toBe(3);
    expect(data!.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const head = await alice.db.from('todos').select('*', { count: 'exact', head: true });
    expect(head.count).toBe(3);
    expect(head.data).toBeNull();
  });

  it('single() and maybeSingle() answer one object (or a PGRST116 error)', async () => {
    const one = await alice.db.from('todos').select('id, task').eq('id', ids[0]!).single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ id: ids[0], task: 'buy milk' });
    const none = await alice.db.from('todos').select('id').eq('id', -1).single();
    expect(none.status).toBe(406);
    expect(none.error).toMatchObject({ code: 'PGRST116' });
    const maybe = await alice.db.from('todos').select('id').eq('id', -1).maybeSingle();
    expect(maybe).toMatchObject({ data: null, error: null });
  });

  it('update and delete return the rows they changed; another user changes nothing ([])', async () => {
    const done = await alice.db.from('todos').update({ is_complete: true }).eq('id', ids[0]!).select();
    expect(done.error).toBeNull();
    expect(done.data).toEqual([expect.objectContaining({ id: ids[0], is_complete: true })]);

    const foreignUpdate = await bob.db.from('todos').update({ task: 'hijacked' }).eq('id', ids[1]!).select();
    expect(foreignUpdate).toMatchObject({ data: [], error: null });
    const foreignDelete = await bob.db.from('todos').delete().eq('id', ids[1]!).select();
    expect(foreignDelete).toMatchObject({ data: [], error: null });

    const removed = await alice.db.from('todos').delete().eq('id', ids[2]!).select('id, task');
    expect(removed.data).toEqual([{ id: ids[2], task: 'write tests' }]);
    const left = await alice.db.from('todos').select('id, task').order('id');
    expect(left.data).toEqual([
      { id: ids[0], task: 'buy milk' },
      { id: ids[1], task: 'walk the dog' },
    ]);
  });

  it('upsert merges on the key, then HEAD counts the rows', async () => {
    const merged = await alice.db
      .from('todos')
      .upsert({ id: ids[1], task: 'walk the cat', user_id: alice.id })
      .select()
      .single();
    expect(merged.error).toBeNull();
    expect(merged.data).toMatchObject({ id: ids[1], task: 'walk the cat', user_id: alice.id });
    const ignored = await alice.db
      .from('todos')
      .upsert({ id: ids[1], task: 'not applied', user_id: alice.id }, { ignoreDuplicates: true })
      .select();
    expect(ignored).toMatchObject({ data: [], error: null });
    const counted = await alice.db.from('todos').select('*', { count: 'exact', head: true });
    expect(counted.count).toBe(2);
  });

  it('rows of other users stay hidden from filters by id', async () => {
    const { data, error } = await bob.db.from('todos').select('*').in('id', ids);
    expect(error).toBeNull();
    expect(data).toEqual([]);
  });

  it('rpc() calls a function by POST and by GET', async () => {
    expect(await alice.db.rpc('add', { a: 2, b: 3 })).toMatchObject({ data: 5, error: null, status: 200 });
    expect(await anon.rpc('add', { a: 40, b: 2 }, { get: true })).toMatchObject({ data: 42, error: null });
  });

  it('csv() answers text/csv', async () => {
    const { data, error } = await alice.db.from('todos').select('id,task').order('id').csv();
    expect(error).toBeNull();
    expect(data).toBe(`id,task\n${ids[0]},buy milk\n${ids[1]},walk the cat`);
  });
});

describe('the keys', () => {
  it('auth.role() is anon, authenticated or service_role, as on Supabase', async () => {
    expect((await anon.rpc('whoami')).data).toEqual({ role: 'anon', uid: null });
    expect((await alice.db.rpc('whoami')).data).toEqual({ role: 'authenticated', uid: alice.id });
    expect((await service.rpc('whoami')).data).toEqual({ role: 'service_role', uid: null });
  });

  it('the anon key reads nothing RLS hides and may not insert (401 42501)', async () => {
    expect(await anon.from('todos').select('*')).toMatchObject({ data: [], error: null });
    const refused = await anon.from('todos').insert({ task: 'anon todo', user_id: alice.id }).select();
    expect(refused.status).toBe(401);
    expect(refused.error).toMatchObject({ code: '42501' });
  });

  it('the API key is service_role: it sees every user’s rows', async () => {
    const { data, error } = await service.from('todos').select('user_id').order('id');
    expect(error).toBeNull();
    expect(new Set(data!.map((r) => r.user_id))).toEqual(new Set([alice.id, bob.id]));
  });

  it.each([
    ['an unknown key', `anon_${'0'.repeat(64)}`],
    ['an unknown API key', `ik_${'0'.repeat(64)}`],
    ['garbage', 'not-a-key'],
  ])('a wrong apikey is refused (401) even with a good Bearer token: %s', async (_label, key) => {
    const client = supabaseClient(url, key, alice.token);
    const { status, error, data } = await client.from('todos').select('*');
    expect(status).toBe(401);
    expect(data).toBeNull();
    expect(error).toMatchObject({ message: 'Invalid API key' });
  });

  it('a user access token is not a project key (401)', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/rest/v1/todos?select=*',
      headers: { apikey: alice.token, ...bearer(alice.token) },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json).toMatchObject({ message: 'Invalid API key' });
  });

  it('the key alone (apikey, no Authorization) is the caller; so is the key as Bearer alone', async () => {
    const viaHeader = await t.request({ method: 'GET', url: '/rest/v1/rpc/whoami', headers: { apikey: t.apiKey } });
    expect(viaHeader.json).toEqual({ role: 'service_role', uid: null });
    const viaBearer = await t.request({ method: 'GET', url: '/rest/v1/rpc/whoami', headers: bearer(t.anonKey) });
    expect(viaBearer.json).toEqual({ role: 'anon', uid: null });
    const none = await t.request({ method: 'GET', url: '/rest/v1/todos' });
    expect(none.statusCode).toBe(401);
  });

  it('an anon apikey with the API key as Bearer acts as service_role (Authorization names the caller)', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/rest/v1/rpc/whoami',
      headers: { apikey: t.anonKey, ...bearer(t.apiKey) },
    });
    expect(res.json).toEqual({ role: 'service_role', uid: null });
  });

  it('the apikey header means nothing outside the Supabase paths', async () => {
    const res = await t.request({ method: 'GET', url: '/api/database/records/todos', headers: { apikey: t.apiKey } });
    expect(res.statusCode).toBe(401);
  });
});

describe('PostgREST’s answers', () => {
  it('a missing foreign key is 409 23503 (Plinth’s own records API answers 400)', async () => {
    const row = { task: 'orphan todo', user_id: randomUUID() };
    const { status, error } = await service.from('todos').insert(row);
    expect(status).toBe(409);
    expect(error).toMatchObject({ code: '23503', details: expect.stringContaining('is not present') });
    const own = await t.request({
      method: 'POST',
      url: '/api/database/records/todos',
      headers: bearer(t.apiKey),
      payload: row,
    });
    expect(own.statusCode).toBe(400);
    expect(
      await service.from('todos').select('id', { count: 'exact', head: true }).eq('task', 'orphan todo'),
    ).toMatchObject({ count: 0 });
  });

  it('errors carry {code, message, details, hint}', async () => {
    const missing = await alice.db.from('no_such_table').select('*');
    expect(missing.status).toBe(404);
    expect(missing.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(missing.error).toHaveProperty('details');
    expect(missing.error).toHaveProperty('hint');
    const badColumn = await alice.db.from('todos').select('nope');
    expect(badColumn.status).toBe(400);
    expect(badColumn.error).toMatchObject({ code: '42703' });
    const check = await alice.db.from('todos').insert({ task: 'no' });
    expect(check.status).toBe(400);
    expect(check.error).toMatchObject({ code: '23514' });
  });

  it('Accept-Profile / Content-Profile pick the schema: public works, others are refused (406 PGRST106)', async () => {
    const pub = await alice.db.schema('public').from('todos').select('id').limit(1);
    expect(pub.error).toBeNull();
    const other = await alice.db.schema('auth').from('users').select('*');
    expect(other.status).toBe(406);
    expect(other.error).toMatchObject({ code: 'PGRST106' });
    const write = await alice.db.schema('auth').from('users').insert({ email: 'x@example.com' });
    expect(write.status).toBe(406);
  });

  it('Prefer: return=minimal answers 201 without a body; missing=default fills defaults', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/rest/v1/todos?columns=task,is_complete',
      headers: { apikey: t.anonKey, ...bearer(alice.token), prefer: 'return=representation, missing=default' },
      payload: [{ task: 'defaults please' }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual([expect.objectContaining({ task: 'defaults please', is_complete: false })]);
    const minimal = await t.request({
      method: 'POST',
      url: '/rest/v1/todos',
      headers: { apikey: t.anonKey, ...bearer(alice.token), prefer: 'return=minimal' },
      payload: { task: 'quietly' },
    });
    expect(minimal.statusCode).toBe(201);
    expect(minimal.body).toBe('');
  });

  it('a text/csv body inserts rows, as PostgREST takes bulk inserts', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/rest/v1/todos?select=task,user_id',
      headers: {
        apikey: t.anonKey,
        ...bearer(alice.token),
        'content-type': 'text/csv',
        prefer: 'return=representation',
      },
      payload: 'task\ncsv row one\ncsv row two',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual([
      { task: 'csv row one', user_id: alice.id },
      { task: 'csv row two', user_id: alice.id },
    ]);
  });

  it('a malformed JSON body is PostgREST’s 400 PGRST102', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/rest/v1/todos',
      headers: { apikey: t.anonKey, ...bearer(alice.token), 'content-type': 'application/json' },
      payload: '{"task": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST102' });
  });
});

// Last: it moves the clock past every token's lifetime.
describe('expired access tokens', () => {
  it('an expired access token is PostgREST’s 401 PGRST303', async () => {
    t.clock.advance(24 * 60 * 60 * 1000);
    const { status, error } = await alice.db.from('todos').select('*');
    expect(status).toBe(401);
    expect(error).toMatchObject({ code: 'PGRST303' });
  });
});
