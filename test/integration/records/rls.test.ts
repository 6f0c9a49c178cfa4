// Records API through HTTP against real PostgreSQL with row-level security written with
// auth.uid(): owners see and change only their rows, anon sees what a policy grants, the admin
// sees everything; no credential is a 401. Also the PostgREST status codes and headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { type SignedInUser, twoUsers } from '../../harness/users.js';

let t: TestApp;
let alice: SignedInUser;
let bob: SignedInUser;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.notes (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      body text not null,
      shared boolean not null default false
    );
    create policy owner_all on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create policy shared_read on public.notes for select to anon, authenticated using (shared);
  `);
  ({ alice, bob } = await twoUsers(t));
});
afterAll(() => t.close());

const records = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'HEAD',
  path: string,
  token: string | undefined,
  options: { payload?: unknown; headers?: Record<string, string> } = {},
) =>
  t.request({
    method,
    url: `/api/database/records/${path}`,
    headers: { ...(token ? bearer(token) : {}), ...options.headers },
    payload: options.payload as never,
  });

const representation = { prefer: 'return=representation' };

describe('row-level security decides', () => {
  let aliceNote: number;
  let sharedNote: number;

  beforeAll(async () => {
    const created = await records('POST', 'notes', alice.token, {
      payload: [
        { body: 'alice private', shared: false },
        { body: 'alice shared', shared: true },
      ],
      headers: representation,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual([
      { id: expect.any(Number), owner: alice.id, body: 'alice private', shared: false },
      { id: expect.any(Number), owner: alice.id, body: 'alice shared', shared: true },
    ]);
    aliceNote = created.json[0].id;
    sharedNote = created.json[1].id;
  });

  it('owners see their rows; others see only shared ones', async () => {
    expect((await records('GET', 'notes?order=id', alice.token)).json.map((n: any) => n.body)).toEqual([
      'alice private',
      'alice shared',
    ]);
    expect((await records('GET', 'notes', bob.token)).json.map((n: any) => n.body)).toEqual(['alice shared']);
  });

  it('anon sees only what a policy grants', async () => {
    const res = await records('GET', 'notes?select=id,body', t.anonKey);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual([{ id: sharedNote, body: 'alice shared' }]);
  });

  it('the admin (token or API key) sees everything', async () => {
    const admin = await t.adminToken();
    expect((await records('GET', 'notes', admin)).json).toHaveLength(2);
    expect((await records('GET', 'notes', t.apiKey)).json).toHaveLength(2);
  });

  it('no credential is 401', async () => {
    const res = await records('GET', 'notes', undefined);
    expect(res.statusCode).toBe(401);
    expect(res.json.error).toBe('UNAUTHORIZED');
  });

  it("a user cannot change or delete another user's rows", async () => {
    const patch = await records('PATCH', `notes?id=eq.${aliceNote}`, bob.token, {
      payload: { body: 'hacked' },
      headers: representation,
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json).toEqual([]);
    const del = await records('DELETE', `notes?id=eq.${aliceNote}`, bob.token, { headers: representation });
    expect(del.json).toEqual([]);
    const still = await records('GET', `notes?id=eq.${aliceNote}`, alice.token);
    expect(still.json).toEqual([{ id: aliceNote, owner: alice.id, body: 'alice private', shared: false }]);
  });

  it('a user cannot insert a row as someone else (403), anon cannot insert at all (401)', async () => {
    const forged = await records('POST', 'notes', bob.token, { payload: { body: 'as alice', owner: alice.id } });
    expect(forged.statusCode).toBe(403);
    expect(forged.json).toMatchObject({ error: 'FORBIDDEN', code: '42501', statusCode: 403 });
    const anon = await records('POST', 'notes', t.anonKey, { payload: { body: 'anon' } });
    expect(anon.statusCode).toBe(401);
    expect(anon.json).toMatchObject({ code: '42501' });
  });

  it('owners update and delete their rows; DELETE with return=representation returns the deleted rows', async () => {
    const made = await records('POST', 'notes', bob.token, { payload: { body: 'bob temp' }, headers: representation });
    const id = made.json[0].id;
    const patched = await records('PATCH', `notes?id=eq.${id}`, bob.token, { payload: { body: 'bob edited' } });
    expect(patched.statusCode).toBe(204);
    expect(patched.body).toBe('');
    const deleted = await records('DELETE', `notes?id=eq.${id}`, bob.token, { headers: representation });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json).toEqual([{ id, owner: bob.id, body: 'bob edited', shared: false }]);
    const gone = await records('DELETE', `notes?id=eq.${id}`, bob.token);
    expect(gone.statusCode).toBe(204);
  });
});

describe('PostgREST conventions', () => {
  beforeAll(async () => {
    await records('POST', 'notes', bob.token, { payload: Array.from({ length: 5 }, (_, i) => ({ body: `bob ${i}` })) });
  });

  it('counts with Prefer count=exact: Content-Range and 206 for a partial page', async () => {
    const res = await records('GET', 'notes?select=body&order=id&limit=2&offset=1', bob.token, {
      headers: { prefer: 'count=exact' },
    });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('1-2/6');
    expect(res.json).toEqual([{ body: 'bob 0' }, { body: 'bob 1' }]);
    const all = await records('GET', 'notes?select=body', bob.token, { headers: { prefer: 'count=exact' } });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-range']).toBe('0-5/6');
  });

  it('pages by Range header', async () => {
    const res = await records('GET', 'notes?select=body&order=id', bob.token, { headers: { range: '0-1' } });
    expect(res.json).toHaveLength(2);
    expect(res.headers['content-range']).toBe('0-1/*');
  });

  it('answers a single object for application/vnd.pgrst.object+json, 406 unless exactly one row', async () => {
    const one = await records('GET', 'notes?body=eq.bob%200', bob.token, {
      headers: { accept: 'application/vnd.pgrst.object+json' },
    });
    expect(one.statusCode).toBe(200);
    expect(one.json).toMatchObject({ body: 'bob 0' });
    const many = await records('GET', 'notes', bob.token, { headers: { accept: 'application/vnd.pgrst.object+json' } });
    expect(many.statusCode).toBe(406);
    expect(many.json).toMatchObject({ code: 'PGRST116' });
  });

  it('HEAD answers the headers without a body', async () => {
    const res = await records('HEAD', 'notes', bob.token, { headers: { prefer: 'count=exact' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-range']).toBe('0-5/6');
    expect(res.body).toBe('');
  });

  it.each([
    ['unknown table', 'GET', 'nope', 404, 'PGRST205'],
    ['unknown column in select', 'GET', 'notes?select=nope', 400, '42703'],
    ['unknown column in a filter', 'GET', 'notes?nope=eq.1', 400, '42703'],
    ['bad value for the column type', 'GET', 'notes?id=eq.abc', 400, '22P02'],
    ['unknown operator', 'GET', 'notes?id=zz.1', 400, 'PGRST100'],
    ['unfiltered delete', 'DELETE', 'notes', 400, '21000'],
    ['unfiltered update', 'PATCH', 'notes', 400, '21000'],
    ['schema not exposed', 'GET', 'notes?schema=auth', 406, 'PGRST106'],
  ] as const)('%s → %i %s', async (_label, method, path, status, code) => {
    const res = await records(method, path, bob.token, method === 'PATCH' ? { payload: { body: 'x' } } : {});
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ statusCode: status, code, message: expect.any(String) });
    expect(res.json).toHaveProperty('details');
    expect(res.json).toHaveProperty('hint');
  });

  it('a table created a moment ago is found at once', async () => {
    await t.deps.sql.unsafe(
      `create table public.fresh (id int primary key); alter table public.fresh disable row level security;`,
    );
    const res = await records('GET', 'fresh', bob.token);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual([]);
  });

  it('new tables are deny-by-default: RLS on, admin-only policy', async () => {
    await t.deps.sql.unsafe(
      `create table public.locked (id int primary key, v text); insert into public.locked values (1, 'x');`,
    );
    expect((await records('GET', 'locked', bob.token)).json).toEqual([]);
    expect((await records('GET', 'locked', t.anonKey)).json).toEqual([]);
    expect((await records('GET', 'locked', t.apiKey)).json).toEqual([{ id: 1, v: 'x' }]);
  });
});
