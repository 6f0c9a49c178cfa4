// Records writes against real PostgreSQL as PostgREST answers them: bulk inserts (the same keys
// in every object, or `columns=` with NULL or `missing=default` for a missing key) and PUT as a
// single-row upsert on the full primary key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;

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
  `);
});
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.request({ method, url: `/api/database/records/${path}`, headers: { ...bearer(t.apiKey), ...headers }, payload: payload as never });

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
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual(expected);
    expect(res.headers['preference-applied']).toContain('return=representation');
  });

  it('missing=default gives each row its own serial value', async () => {
    const res = await send('POST', 'gadgets?columns=id,name&select=id', [{ name: 'x' }, { name: 'y' }], { prefer: 'return=representation, missing=default' });
    expect(res.statusCode).toBe(201);
    const [first, second] = res.json.map((r: { id: number }) => r.id);
    expect(second).toBe(first + 1);
  });

  it('without columns=, objects with different keys are refused whole (400 PGRST102)', async () => {
    const before = (await send('GET', 'gadgets?select=id')).json.length;
    const res = await send('POST', 'gadgets', bulk);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST102', message: 'All object keys must match', error: 'VALIDATION_ERROR', statusCode: 400 });
    expect((await send('GET', 'gadgets?select=id')).json).toHaveLength(before);
  });

  it('without columns=, the same keys in every object insert as before', async () => {
    const res = await send('POST', 'gadgets?select=name,color', [{ name: 'p', color: null }, { color: 'blue', name: 'q' }], { prefer: 'return=representation' });
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual([{ name: 'p', color: null }, { name: 'q', color: 'blue' }]);
  });
});

describe('PUT: a single-row upsert on the primary key', () => {
  it('inserts (201), then replaces the named columns of the same row (200, or 204 without a body)', async () => {
    const created = await send('PUT', 'pairs?a=eq.1&b=eq.2', { a: 1, b: 2, label: 'first' }, { prefer: 'return=representation' });
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual([{ a: 1, b: 2, label: 'first' }]);
    const replaced = await send('PUT', 'pairs?b=eq.2&a=eq.1', { a: 1, b: 2, label: 'second' });
    expect(replaced.statusCode).toBe(204);
    expect(replaced.body).toBe('');
    const again = await send('PUT', 'pairs?b=eq.2&a=eq.1', { a: 1, b: 2, label: 'third' }, { prefer: 'return=representation' });
    expect(again.statusCode).toBe(200);
    expect(again.json).toEqual([{ a: 1, b: 2, label: 'third' }]);
    expect((await send('GET', 'pairs?a=eq.1')).json).toEqual([{ a: 1, b: 2, label: 'third' }]);
  });

  it('a body of only the key columns inserts once, then changes nothing', async () => {
    expect((await send('PUT', 'pairs?a=eq.3&b=eq.3', { a: 3, b: 3 })).statusCode).toBe(201);
    expect((await send('PUT', 'pairs?a=eq.3&b=eq.3', { a: 3, b: 3 })).statusCode).toBe(204);
  });

  it('answers one object with vnd.pgrst.object+json', async () => {
    const res = await send('PUT', 'pairs?a=eq.7&b=eq.7', [{ a: 7, b: 7, label: 'seven' }], { prefer: 'return=representation', accept: 'application/vnd.pgrst.object+json' });
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
    ['two objects', 'pairs?a=eq.1&b=eq.2', [{ a: 1, b: 2 }, { a: 1, b: 2 }], 400, 'PGRST102'],
    ['a body that is not an object', 'pairs?a=eq.1&b=eq.2', [1], 400, 'PGRST102'],
    ['a body key that is no column', 'pairs?a=eq.1&b=eq.2', { a: 1, b: 2, nope: 1 }, 400, 'PGRST204'],
  ])('refuses %s (%i %s)', async (_label, path, body, status, code) => {
    const res = await send('PUT', path, body);
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ code, statusCode: status });
  });
});
