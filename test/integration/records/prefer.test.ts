// The Prefer preferences beyond return/resolution, against real PostgreSQL: planned and estimated
// counts, handling=strict (PGRST122 for preferences it does not understand, max-affected with
// PGRST124 and a rollback), tx=rollback, Content-Range on writes, a write answering one object
// that must change exactly one row; then media types (CSV, 406 PGRST107) and Fastify's own
// request errors (malformed JSON, unreadable Content-Type) in PostgREST's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.items (id int primary key, kind text not null, n int not null default 0);
    insert into public.items select i, case when i % 2 = 0 then 'even' else 'odd' end from generate_series(1, 40) i;
    analyze public.items;
  `);
});
afterAll(() => t.close());

const send = (
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  headers: Record<string, string>,
  payload?: unknown,
) =>
  t.request({
    method,
    url: `/api/database/records/${path}`,
    headers: { ...bearer(t.apiKey), ...headers },
    payload: payload as never,
  });
const nOf = async (id: number) => (await t.deps.sql`select n from public.items where id = ${id}`)[0]!.n as number;

describe('counts', () => {
  it.each<[string, string, string, number, RegExp]>([
    ['exact', 'items?limit=5', 'count=exact', 206, /^0-4\/40$/],
    ['planned: the planner estimate', 'items?limit=5', 'count=planned', 206, /^0-4\/\d+$/],
    ['planned with a filter', 'items?kind=eq.even&limit=5', 'count=planned', 206, /^0-4\/\d+$/],
    ['estimated: exact under the row cap', 'items?kind=eq.odd&limit=5', 'count=estimated', 206, /^0-4\/20$/],
    ['no count', 'items?limit=5', '', 200, /^0-4\/\*$/],
  ])('%s', async (_label, path, prefer, status, range) => {
    const res = await send('GET', path, { prefer });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-range']).toMatch(range);
    expect(res.json).toHaveLength(5);
    if (prefer) expect(res.headers['preference-applied']).toBe(prefer);
  });

  it('planned is the table statistics, near the real size', async () => {
    const res = await send('HEAD', 'items', { prefer: 'count=planned' });
    const planned = Number(res.headers['content-range']!.split('/')[1]);
    expect(planned).toBeGreaterThan(20);
    expect(planned).toBeLessThan(80);
  });
});

describe('handling=strict', () => {
  it.each<[string, string]>([
    ['an unknown preference', 'handling=strict, frobnicate=yes'],
    ['an invalid value', 'return=everything, handling=strict'],
    ['a bad max-affected', 'handling=strict, max-affected=many'],
  ])('refuses %s with PGRST122', async (_label, prefer) => {
    const res = await send('GET', 'items?limit=1', { prefer });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST122', message: 'Invalid preferences given with handling=strict' });
    expect(res.json.details).toMatch(/^Invalid preferences: /);
  });

  it('lenient (the default) ignores them', async () => {
    const res = await send('GET', 'items?limit=1', { prefer: 'frobnicate=yes, return=everything' });
    expect(res.statusCode).toBe(200);
  });

  it('max-affected: a write changing more rows fails with PGRST124 and changes nothing', async () => {
    const res = await send('PATCH', 'items?kind=eq.even', { prefer: 'handling=strict, max-affected=3' }, { n: 9 });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST124', details: 'The query affects 20 rows' });
    expect(await nOf(2)).toBe(0);
  });

  it('max-affected: within the limit the write happens', async () => {
    const res = await send(
      'PATCH',
      'items?id=in.(1,2)',
      { prefer: 'handling=strict, max-affected=2, return=representation' },
      { n: 5 },
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['preference-applied']).toBe('return=representation, handling=strict, max-affected=2');
    expect(await nOf(2)).toBe(5);
  });

  it('max-affected without handling=strict is ignored', async () => {
    const res = await send('DELETE', 'items?id=in.(39,40)', { prefer: 'max-affected=1' });
    expect(res.statusCode).toBe(204);
  });
});

describe('tx=rollback and write answers', () => {
  it('answers as if it wrote, then rolls back', async () => {
    const res = await send('PATCH', 'items?id=eq.3', { prefer: 'tx=rollback, return=representation' }, { n: 77 });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual([{ id: 3, kind: 'odd', n: 77 }]);
    expect(res.headers['preference-applied']).toBe('return=representation, tx=rollback');
    expect(await nOf(3)).toBe(0);
  });

  it.each<[string, string, number, string]>([
    ['insert without count', '', 201, '*/*'],
    ['insert with count=exact', 'count=exact', 201, '*/2'],
  ])('Content-Range of a write: %s', async (_label, prefer, status, range) => {
    const ids = prefer ? [101, 102] : [103, 104];
    const res = await send(
      'POST',
      'items',
      { prefer },
      ids.map((id) => ({ id, kind: 'new' })),
    );
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-range']).toBe(range);
  });

  it('a write asking for one object that changes several rows is 406 PGRST116 and rolled back', async () => {
    const res = await send(
      'PATCH',
      'items?kind=eq.odd',
      { prefer: 'return=representation', accept: 'application/vnd.pgrst.object+json' },
      { n: 4 },
    );
    expect(res.statusCode).toBe(406);
    expect(res.json).toMatchObject({ code: 'PGRST116', details: 'The result contains 19 rows' });
    expect(await nOf(5)).toBe(0);
  });
});

describe('media types', () => {
  it('text/csv: the rows as CSV', async () => {
    const res = await send('GET', 'items?select=id,kind&id=lte.2&order=id', { accept: 'text/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body).toBe('id,kind\n1,odd\n2,even');
  });

  it('text/csv for the rows a write returns', async () => {
    const res = await send(
      'POST',
      'items?select=id,kind',
      { accept: 'text/csv', prefer: 'return=representation' },
      { id: 200, kind: 'a,b' },
    );
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe('id,kind\n200,"a,b"');
  });

  it('a text/csv body inserts its rows (NULL is null), as PostgREST takes CSV', async () => {
    const postCsv = (payload: string) =>
      t.request({
        method: 'POST',
        url: '/api/database/records/items?select=id,kind,n',
        headers: { ...bearer(t.apiKey), 'content-type': 'text/csv', prefer: 'return=representation' },
        payload,
      });
    const nullInNotNull = await postCsv('id,kind,n\n300,"csv, quoted",7\n301,plain,NULL\n');
    expect(nullInNotNull.statusCode).toBe(400);
    expect(nullInNotNull.json).toMatchObject({ code: '23502' });
    const ok = await postCsv('id,kind,n\n300,"csv, quoted",7\n301,plain,8\n');
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json).toEqual([
      { id: 300, kind: 'csv, quoted', n: 7 },
      { id: 301, kind: 'plain', n: 8 },
    ]);
    const bad = await postCsv('id,kind\n1');
    expect(bad.statusCode).toBe(400);
    expect(bad.json).toMatchObject({ code: 'PGRST102' });
  });

  it('an Accept nothing can satisfy is 406 PGRST107, before any write', async () => {
    const res = await send('POST', 'items', { accept: 'image/png' }, { id: 201, kind: 'x' });
    expect(res.statusCode).toBe(406);
    expect(res.json).toMatchObject({ code: 'PGRST107', message: 'None of these media types are available: image/png' });
    expect((await t.deps.sql`select count(*)::int as n from public.items where id = 201`)[0]!.n).toBe(0);
  });
});

describe("Fastify's request errors in PostgREST's shape", () => {
  const raw = (method: 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload: string) =>
    t.request({ method, url, headers: { ...bearer(t.apiKey), ...headers }, payload });

  it.each<[string, string, Record<string, string>, string, number, string, string]>([
    [
      'malformed JSON',
      '/api/database/records/items',
      { 'content-type': 'application/json' },
      '{"id": 1,',
      400,
      'PGRST102',
      'Empty or invalid json',
    ],
    [
      'malformed JSON on an update',
      '/api/database/records/items?id=eq.1',
      { 'content-type': 'application/json' },
      '[1,}',
      400,
      'PGRST102',
      'Empty or invalid json',
    ],
    [
      'a Content-Type it cannot read',
      '/api/database/records/items',
      { 'content-type': 'application/xml' },
      '<id>1</id>',
      415,
      'PGRST107',
      'Content-Type not acceptable: application/xml',
    ],
    [
      'malformed JSON to a function',
      '/api/database/rpc/nothing',
      { 'content-type': 'application/json' },
      '{',
      400,
      'PGRST102',
      'Empty or invalid json',
    ],
  ])('%s', async (_label, url, headers, payload, status, code, message) => {
    const res = await raw(url.includes('?') ? 'PATCH' : 'POST', url, headers, payload);
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ code, message, hint: null, statusCode: status });
    expect(typeof res.json.details).toBe('string');
    expect(res.json.error).toEqual(expect.any(String));
  });

  it('a table name past 63 characters is a 400 PGRST100', async () => {
    const res = await send('GET', 'x'.repeat(64), {});
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST100', error: 'VALIDATION_ERROR' });
  });

  it('other routes keep the plain shape', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: { ...bearer(await t.adminToken()), 'content-type': 'application/json' },
      payload: '{',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.code).toBeUndefined();
  });

  it('no credential is still the 401 of the application', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/database/records/items',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expect(res.statusCode).toBe(401);
  });
});
