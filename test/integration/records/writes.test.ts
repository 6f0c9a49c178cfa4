// Records writes against real PostgreSQL as PostgREST answers them: bulk inserts (the same keys
// in every object, or `columns=` with NULL or `missing=default` for a missing key) and PUT as a
// single-row upsert on the full primary key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let userId: string;
let userToken: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create domain public.rating as integer default 3;
    create table public.gadgets (
      id bigserial primary key,
      name text not null,
      color text default 'grey',
      stars public.rating,
      tier public.rating default 5,
      note text
    );
    create table public.pairs (a int, b int, label text, primary key (a, b));
    create table public.entries (
      id bigserial primary key,
      owner uuid default auth.uid(),
      label text not null default 'untitled',
      created_at timestamptz not null default now()
    );
    alter table public.entries enable row level security;
    create policy entries_anon on public.entries for all to anon using (owner is null) with check (owner is null);
    create policy entries_own on public.entries for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
  `);
  const user = await t.signUp();
  userId = user.user.id;
  userToken = user.accessToken;
});
afterAll(() => t.close());

const send = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) =>
  t.request({
    method,
    url: `/api/database/records/${path}`,
    headers: { ...bearer(t.apiKey), ...headers },
    payload: payload as never,
  });

describe('bulk insert', () => {
  const bulk = [{ name: 'a', color: 'red' }, { name: 'b' }, { name: 'c', note: 'n', stars: 1 }];

  it.each<[string, string, string, unknown]>([
    [
      'columns= with missing keys: NULL',
      'gadgets?columns=name,color,stars,tier,note&select=name,color,stars,tier,note',
      'return=representation',
      [
        { name: 'a', color: 'red', stars: null, tier: null, note: null },
        { name: 'b', color: null, stars: null, tier: null, note: null },
        { name: 'c', color: null, stars: 1, tier: null, note: 'n' },
      ],
    ],
    [
      'columns= with missing=default: the column DEFAULT, else the domain default',
      'gadgets?columns=name,color,stars,tier,note&select=name,color,stars,tier,note',
      'return=representation, missing=default',
      [
        { name: 'a', color: 'red', stars: 3, tier: 5, note: null },
        { name: 'b', color: 'grey', stars: 3, tier: 5, note: null },
        { name: 'c', color: 'grey', stars: 1, tier: 5, note: 'n' },
      ],
    ],
  ])('%s', async (_label, path, prefer, expected) => {
    const res = await send('POST', path, bulk, { prefer });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual(expected);
    expect(res.headers['preference-applied']).toContain('return=representation');
  });

  it('missing=default gives each row its own serial value', async () => {
    const res = await send('POST', 'gadgets?columns=id,name&select=id', [{ name: 'x' }, { name: 'y' }], {
      prefer: 'return=representation, missing=default',
    });
    expect(res.statusCode).toBe(201);
    const [first, second] = res.json.map((r: { id: number }) => r.id);
    expect(second).toBe(first + 1);
  });

  it('without columns=, objects with different keys are refused whole (400 PGRST102)', async () => {
    const before = (await send('GET', 'gadgets?select=id')).json.length;
    const res = await send('POST', 'gadgets', bulk);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      code: 'PGRST102',
      message: 'All object keys must match',
      error: 'VALIDATION_ERROR',
      statusCode: 400,
    });
    expect((await send('GET', 'gadgets?select=id')).json).toHaveLength(before);
  });

  it('without columns=, the same keys in every object insert as before', async () => {
    const res = await send(
      'POST',
      'gadgets?select=name,color',
      [
        { name: 'p', color: null },
        { color: 'blue', name: 'q' },
      ],
      { prefer: 'return=representation' },
    );
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual([
      { name: 'p', color: null },
      { name: 'q', color: 'blue' },
    ]);
  });
});

describe('return=headers-only', () => {
  it.each<[string, string, unknown, string | undefined]>([
    ['one row: Location names it by primary key', 'gadgets', { name: 'located' }, '/gadgets?id=eq.'],
    ['a composite key', 'pairs', { a: 40, b: 41, label: 'x' }, '/pairs?a=eq.40&b=eq.41'],
    ['several rows: no Location', 'gadgets', [{ name: 'l1' }, { name: 'l2' }], undefined],
  ])('%s', async (_label, table, body, location) => {
    const res = await send('POST', table, body, { prefer: 'return=headers-only' });
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe('');
    if (location === undefined) expect(res.headers.location).toBeUndefined();
    else
      expect(res.headers.location).toMatch(
        new RegExp(`^${location.replace(/[?.]/g, '\\$&')}${location.endsWith('.') ? '\\d+' : ''}$`),
      );
    expect(res.headers['preference-applied']).toBe('return=headers-only');
  });
});

describe('PUT: a single-row upsert on the primary key', () => {
  it('inserts (201), then replaces the named columns of the same row (200, or 204 without a body)', async () => {
    const created = await send(
      'PUT',
      'pairs?a=eq.1&b=eq.2',
      { a: 1, b: 2, label: 'first' },
      { prefer: 'return=representation' },
    );
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual([{ a: 1, b: 2, label: 'first' }]);
    const replaced = await send('PUT', 'pairs?b=eq.2&a=eq.1', { a: 1, b: 2, label: 'second' });
    expect(replaced.statusCode).toBe(204);
    expect(replaced.body).toBe('');
    const again = await send(
      'PUT',
      'pairs?b=eq.2&a=eq.1',
      { a: 1, b: 2, label: 'third' },
      { prefer: 'return=representation' },
    );
    expect(again.statusCode).toBe(200);
    expect(again.json).toEqual([{ a: 1, b: 2, label: 'third' }]);
    expect((await send('GET', 'pairs?a=eq.1')).json).toEqual([{ a: 1, b: 2, label: 'third' }]);
  });

  it('a body of only the key columns inserts once, then changes nothing', async () => {
    expect((await send('PUT', 'pairs?a=eq.3&b=eq.3', { a: 3, b: 3 })).statusCode).toBe(201);
    expect((await send('PUT', 'pairs?a=eq.3&b=eq.3', { a: 3, b: 3 })).statusCode).toBe(204);
  });

  it('answers one object with vnd.pgrst.object+json', async () => {
    const res = await send('PUT', 'pairs?a=eq.7&b=eq.7', [{ a: 7, b: 7, label: 'seven' }], {
      prefer: 'return=representation',
      accept: 'application/vnd.pgrst.object+json',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual({ a: 7, b: 7, label: 'seven' });
  });

  it.each<[string, string, unknown, number, string]>([
    ['a filter missing a key column', 'pairs?a=eq.1', { a: 1, b: 2 }, 405, 'PGRST105'],
    ['a non-eq filter on a key column', 'pairs?a=eq.1&b=gt.2', { a: 1, b: 3 }, 405, 'PGRST105'],
    ['a negated eq', 'pairs?a=eq.1&b=not.eq.2', { a: 1, b: 3 }, 405, 'PGRST105'],
    ['an extra filter on another column', 'pairs?a=eq.1&b=eq.2&label=eq.x', { a: 1, b: 2 }, 405, 'PGRST105'],
    ['a key column twice', 'pairs?a=eq.1&a=eq.1&b=eq.2', { a: 1, b: 2 }, 405, 'PGRST105'],
    ['no filter', 'pairs', { a: 1, b: 2 }, 405, 'PGRST105'],
    ['a logic tree', 'pairs?or=(a.eq.1,b.eq.2)', { a: 1, b: 2 }, 405, 'PGRST105'],
    ['limit', 'pairs?a=eq.1&b=eq.2&limit=1', { a: 1, b: 2 }, 400, 'PGRST114'],
    ['a body key that differs from the filter', 'pairs?a=eq.1&b=eq.2', { a: 1, b: 3 }, 400, 'PGRST115'],
    ['a body without a key column', 'pairs?a=eq.1&b=eq.2', { a: 1, label: 'x' }, 400, 'PGRST115'],
    [
      'two objects',
      'pairs?a=eq.1&b=eq.2',
      [
        { a: 1, b: 2 },
        { a: 1, b: 2 },
      ],
      400,
      'PGRST102',
    ],
    ['a body that is not an object', 'pairs?a=eq.1&b=eq.2', [1], 400, 'PGRST102'],
    ['a body key that is no column', 'pairs?a=eq.1&b=eq.2', { a: 1, b: 2, nope: 1 }, 400, 'PGRST204'],
  ])('refuses %s (%i %s)', async (_label, path, body, status, code) => {
    const res = await send('PUT', path, body);
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ code, statusCode: status });
  });
});

describe('objects without keys: a row of column defaults each (as PostgREST, DEFAULT VALUES)', () => {
  const as =
    (token: string) =>
    (method: 'GET' | 'POST', path: string, payload?: unknown, headers: Record<string, string> = {}) =>
      t.request({
        method,
        url: `/api/database/records/${path}`,
        headers: { ...bearer(token), ...headers },
        payload: payload as never,
      });
  const entry = (owner: string | null) => ({
    id: expect.any(Number),
    owner,
    label: 'untitled',
    created_at: expect.any(String),
  });

  it('a user posts {} with return=representation: 201 and the defaulted row', async () => {
    const res = await as(userToken)('POST', 'entries', {}, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual([entry(userId)]);
  });

  it('a user posts [{}, {}]: one row each, with their own serial values', async () => {
    const res = await as(userToken)('POST', 'entries?select=id,label', [{}, {}], { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toHaveLength(2);
    expect(res.json[1].id).toBe(res.json[0].id + 1);
    expect(res.json.map((r: { label: string }) => r.label)).toEqual(['untitled', 'untitled']);
  });

  it('anon posts {} (return=minimal): 201 without a body, and the row is there', async () => {
    const anon = as(t.anonKey);
    const before = (await anon('GET', 'entries?select=id')).json.length;
    const res = await anon('POST', 'entries', {});
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body).toBe('');
    expect((await anon('GET', 'entries?select=id')).json).toHaveLength(before + 1);
  });

  it('an upsert of {} inserts a row (nothing to merge): 201', async () => {
    const res = await as(userToken)(
      'POST',
      'entries',
      {},
      { prefer: 'return=representation, resolution=merge-duplicates' },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual([entry(userId)]);
    expect(res.headers['preference-applied']).toContain('resolution=merge-duplicates');
  });

  it('{} as one object (Accept: vnd.pgrst.object+json), and return=headers-only gives its Location', async () => {
    const one = await as(userToken)(
      'POST',
      'entries',
      {},
      { prefer: 'return=representation', accept: 'application/vnd.pgrst.object+json' },
    );
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json).toEqual(entry(userId));
    const located = await as(userToken)('POST', 'entries', {}, { prefer: 'return=headers-only' });
    expect(located.statusCode).toBe(201);
    expect(located.headers.location).toMatch(/^\/entries\?id=eq\.\d+$/);
  });

  it('row-level security still decides: a user cannot insert a default row owned by nobody', async () => {
    await t.deps.sql.unsafe(`alter table public.entries alter column owner drop default`);
    try {
      const res = await as(userToken)('POST', 'entries', {});
      expect(res.statusCode).toBe(403);
      expect(res.json).toMatchObject({ code: '42501' });
    } finally {
      await t.deps.sql.unsafe(`alter table public.entries alter column owner set default auth.uid()`);
    }
  });
});
