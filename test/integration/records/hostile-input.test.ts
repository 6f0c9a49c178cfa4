// Hostile JSON with the public anon key and a user token: bodies nested thousands of levels deep
// are refused with a 400 before they reach the driver, and the database routes keep answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let userToken: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.docs (id bigserial primary key, data jsonb, tags text[]);
    alter table public.docs enable row level security;
    create policy docs_read on public.docs for select to anon, authenticated using (true);
    create policy docs_write on public.docs for insert to authenticated with check (true);
    create function public.echo(payload jsonb) returns jsonb language sql as 'select payload';
    create function public.whole(jsonb) returns jsonb language sql as 'select $1';
  `);
  userToken = (await t.signUp()).accessToken;
});
afterAll(() => t.close());

/** `{"data":[[[…]]]}` nested `depth` levels, as text (JSON.stringify of such a value would itself recurse). */
const nested = (depth: number) => `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;

const post = (url: string, token: string, payload: string, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url,
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    payload,
  });

describe('deeply nested JSON', () => {
  it('anon: 100 bodies 5,000 levels deep are refused with 400, and every database route still answers', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await post('/api/database/records/docs', t.anonKey, nested(5000));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400, code: 'PGRST102' });
      expect(res.json.nextActions).toEqual(expect.any(String));
    }
    const read = await t.request({ method: 'GET', url: '/api/database/records/docs', headers: bearer(t.anonKey) });
    expect(read.statusCode).toBe(200);
    const ready = await t.request({ method: 'GET', url: '/api/health/ready' });
    expect(ready.statusCode).toBe(200);
  });

  it.each<[string, string, () => string, string, string]>([
    ['records insert (user)', '/api/database/records/docs', () => userToken, nested(5000), "'data'"],
    [
      'records bulk insert (user)',
      '/api/database/records/docs',
      () => userToken,
      `[${nested(3000)},${nested(3000)}]`,
      'The body',
    ],
    ['records update (user)', '/api/database/records/docs?id=eq.1', () => userToken, nested(5000), "'data'"],
    [
      'rpc named argument (anon)',
      '/api/database/rpc/echo',
      () => t.anonKey,
      `{"payload":${nested(5000)}}`,
      "'payload'",
    ],
    ['rpc whole body (anon)', '/api/database/rpc/whole', () => t.anonKey, nested(5000), "'data'"],
    [
      'rpc under the records path (user)',
      '/api/database/records/rpc/echo',
      () => userToken,
      `{"payload":${nested(5000)}}`,
      "'payload'",
    ],
  ])('%s: 400 PGRST102 in the records shape', async (_label, url, token, payload, where) => {
    const method = url.includes('?id=') ? 'PATCH' : 'POST';
    const res = await t.request({
      method,
      url,
      headers: { ...bearer(token()), 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      code: 'PGRST102',
      statusCode: 400,
      details: expect.any(String),
      hint: null,
    });
    expect(res.json.message).toContain('64 levels');
    expect(res.json.details).toContain(where);
  });

  it('other JSON routes refuse it with 400 VALIDATION_ERROR and nextActions', async () => {
    const res = await t.request({
      method: 'PATCH',
      url: '/api/auth/profiles/current',
      headers: { ...bearer(userToken), 'content-type': 'application/json' },
      payload: `{"profile":${nested(5000)}}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400, nextActions: expect.any(String) });
    expect(res.json.details).toEqual([
      { field: 'profile', rule: 'max_depth', message: 'must not nest deeper than 64 levels' },
    ]);
    const signIn = await t.request({
      method: 'POST',
      url: '/api/auth/sessions',
      headers: { 'content-type': 'application/json' },
      payload: nested(100),
    });
    expect(signIn.statusCode).toBe(400);
    expect(signIn.json.error).toBe('VALIDATION_ERROR');
  });

  it('nesting up to MAX_JSON_DEPTH (64) is stored and read back', async () => {
    // The row object is one of the 64 levels.
    const data = JSON.parse(`${'['.repeat(63)}1${']'.repeat(63)}`);
    const res = await post('/api/database/records/docs?select=data', userToken, JSON.stringify({ data }), {
      prefer: 'return=representation',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual([{ data }]);
    const called = await post('/api/database/rpc/echo', t.anonKey, JSON.stringify({ payload: data }));
    expect(called.statusCode, called.body).toBe(200);
    expect(called.json).toEqual(data);
    const tooDeep = await post('/api/database/records/docs', userToken, JSON.stringify({ data: [data] }));
    expect(tooDeep.statusCode).toBe(400);
  });

  it('brackets inside strings do not count', async () => {
    const res = await post(
      '/api/database/records/docs?select=data',
      userToken,
      JSON.stringify({ data: { text: '['.repeat(5000) } }),
      { prefer: 'return=representation' },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json[0].data.text).toHaveLength(5000);
  });
});
