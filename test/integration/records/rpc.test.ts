// Function calls (`/api/database/rpc/{fn}`) through HTTP against real PostgreSQL: named
// arguments by POST and GET, defaults, overloads and PostgREST's errors for them; scalar, row,
// set and table results shaped by select/filters/order/paging/count; auth.uid() and the request
// role inside functions; row-level security for security-invoker functions (and its bypass by
// security definer); read-only transactions for GET and for functions that are not volatile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { type SignedInUser, twoUsers } from '../../harness/users.js';

let t: TestApp;
let alice: SignedInUser;
let bob: SignedInUser;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.items (
      id serial primary key,
      owner uuid not null default auth.uid(),
      name text not null,
      price int not null,
      shared boolean not null default false
    );
    create policy owner_all on public.items for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create policy shared_read on public.items for select to anon, authenticated using (shared);
    create table public.tags (id serial primary key, item_id int not null references public.items(id), label text not null);
    create policy tags_read on public.tags for select to anon, authenticated using (true);
    create table public.calls (id serial primary key, note text not null);
    create policy calls_all on public.calls for all to anon, authenticated using (true) with check (true);

    create function public.add(a int, b int) returns int language sql immutable as $$ select a + b $$;
    create function public.greet(name text default 'world') returns text language sql stable as $$ select 'hello ' || name $$;
    create function public.whoami() returns uuid language sql stable as $$ select auth.uid() $$;
    create function public.my_role() returns text language sql stable as $$ select current_user::text $$;
    create function public.negate(b boolean) returns boolean language sql immutable as $$ select not b $$;
    create function public.echo_text(s text) returns text language sql immutable as $$ select s $$;
    create function public.next_day(d date) returns date language sql immutable as $$ select d + 1 $$;
    create function public.fail() returns int language plpgsql as $$
      begin raise exception 'nope' using hint = 'try again'; end $$;

    create function public.create_item(name text, price int, shared boolean default false) returns public.items
      language sql volatile as $$ insert into public.items (name, price, shared) values (name, price, shared) returning * $$;
    create function public.list_items() returns setof public.items language sql stable as $$ select * from public.items $$;
    create function public.list_items_definer() returns setof public.items language sql stable security definer
      as $$ select * from public.items $$;
    create function public.first_item() returns public.items language sql stable as $$ select * from public.items order by id limit 1 $$;
    create function public.item_stats(min_price int default 0) returns table(name text, price int, doubled int)
      language sql stable as $$ select i.name, i.price, i.price * 2 from public.items i where i.price >= min_price $$;
    create function public.numbers(n int) returns setof int language sql immutable as $$ select generate_series(1, n) $$;
    create function public.count_items() returns bigint language sql as $$ select count(*) from public.items $$;

    create function public.log_then_list() returns setof int language sql as $$
      insert into public.calls (note) values ('listed'); select generate_series(1, 3) $$;
    create function public.log_call(note text) returns void language sql as $$ insert into public.calls (note) values (note) $$;
    create function public.sneaky() returns int language plpgsql stable as $$
      begin perform public.log_call('sneaky'); return 1; end $$;
    create function public.echo_json(jsonb) returns jsonb language sql immutable as $$ select $1 $$;
    create function public.sum_all(variadic xs int[]) returns int language sql immutable as $$ select sum(x)::int from unnest(xs) x $$;
    create function public.pick(a int) returns text language sql immutable as $$ select 'int' $$;
    create function public.pick(b text) returns text language sql immutable as $$ select 'text' $$;
    create function public.amb(a int) returns text language sql immutable as $$ select 'int' $$;
    create function public.amb(a text) returns text language sql immutable as $$ select 'text' $$;
  `);
  ({ alice, bob } = await twoUsers(t));
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'HEAD';
const rpc = (
  method: Method,
  path: string,
  token: string | undefined,
  options: { payload?: unknown; headers?: Record<string, string> } = {},
) =>
  t.request({
    method,
    url: `/api/database/rpc/${path}`,
    headers: { ...(token ? bearer(token) : {}), ...options.headers },
    payload: options.payload as never,
  });

describe('writes through a volatile function run as the caller', () => {
  beforeAll(async () => {
    const made = [
      ['alice', alice.token, { name: 'lamp', price: 30 }],
      ['alice', alice.token, { name: 'desk', price: 120, shared: true }],
      ['bob', bob.token, { name: 'pen', price: 2 }],
    ] as const;
    for (const [, token, payload] of made) {
      const res = await rpc('POST', 'create_item', token, { payload });
      expect(res.statusCode, res.body).toBe(200);
    }
    const tagged = await t.deps.sql`select id from public.items where name = 'desk'`;
    await t.deps
      .sql`insert into public.tags (item_id, label) values (${tagged[0]!.id}, 'wood'), (${tagged[0]!.id}, 'big')`;
  });

  it('a function returning one row answers a JSON object, owned by auth.uid()', async () => {
    const res = await rpc('POST', 'create_item', bob.token, { payload: { name: 'cup', price: 5 } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json).toEqual({ id: expect.any(Number), owner: bob.id, name: 'cup', price: 5, shared: false });
  });

  it('Prefer: return=minimal does not apply to calls (PostgREST answers the result all the same)', async () => {
    const res = await rpc('POST', 'create_item', bob.token, {
      payload: { name: 'mug', price: 7 },
      headers: { prefer: 'return=minimal' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ name: 'mug', price: 7, owner: bob.id });
    await t.deps.sql`delete from public.items where name = 'mug'`;
  });

  it('anon may not insert (the policy refuses): 401 with the SQLSTATE', async () => {
    const res = await rpc('POST', 'create_item', t.anonKey, { payload: { name: 'x', price: 1 } });
    expect(res.statusCode).toBe(401);
    expect(res.json).toMatchObject({ code: '42501' });
  });

  describe('security invoker functions see what row-level security lets the caller see', () => {
    it.each([
      ['alice', () => alice.token, ['desk', 'lamp']],
      ['bob', () => bob.token, ['cup', 'desk', 'pen']],
      ['anon', () => t.anonKey, ['desk']],
      ['the API key', () => t.apiKey, ['cup', 'desk', 'lamp', 'pen']],
    ])('%s', async (_who, token, names) => {
      const res = await rpc('GET', 'list_items?select=name&order=name', token());
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json).toEqual(names.map((name) => ({ name })));
    });

    it('a security definer function runs as its owner: RLS of the caller no longer applies', async () => {
      const res = await rpc('POST', 'list_items_definer?select=name&order=name', t.anonKey, { payload: {} });
      expect(res.json).toEqual([{ name: 'cup' }, { name: 'desk' }, { name: 'lamp' }, { name: 'pen' }]);
    });
  });

  describe('set results take the records grammar', () => {
    it('select, filters, order, limit/offset and count=exact apply to the rows (206 when partial)', async () => {
      const res = await rpc(
        'GET',
        'list_items?select=name,price&price=gte.3&order=price.desc&limit=2&offset=1',
        t.apiKey,
        {
          headers: { prefer: 'count=exact' },
        },
      );
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-range']).toBe('1-2/3');
      expect(res.headers['preference-applied']).toBe('count=exact');
      expect(res.json).toEqual([
        { name: 'lamp', price: 30 },
        { name: 'cup', price: 5 },
      ]);
    });

    it('the same by POST, with a logic tree and a rename', async () => {
      const res = await rpc('POST', 'list_items?select=label:name&or=(price.lt.3,price.gt.100)&order=name', t.apiKey, {
        payload: {},
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-range']).toBe('0-1/*');
      expect(res.json).toEqual([{ label: 'desk' }, { label: 'pen' }]);
    });

    it('a function returning rows of a table embeds over its foreign keys', async () => {
      const res = await rpc('GET', 'list_items?select=name,tags(label)&name=eq.desk&tags.order=label', alice.token);
      expect(res.json).toEqual([{ name: 'desk', tags: [{ label: 'big' }, { label: 'wood' }] }]);
    });

    it('an offset past the counted rows → 416 PGRST103', async () => {
      const res = await rpc('GET', 'list_items?offset=9', t.apiKey, { headers: { prefer: 'count=exact' } });
      expect(res.statusCode).toBe(416);
      expect(res.json).toMatchObject({ code: 'PGRST103' });
    });

    it('pages by Range header', async () => {
      const res = await rpc('GET', 'list_items?select=name&order=name', t.apiKey, { headers: { range: '1-2' } });
      expect(res.json).toEqual([{ name: 'desk' }, { name: 'lamp' }]);
      expect(res.headers['content-range']).toBe('1-2/*');
    });

    it('returns table(…): its columns, with arguments and filters side by side in a GET', async () => {
      const res = await rpc('GET', 'item_stats?min_price=5&doubled=lt.100&order=price', t.apiKey);
      expect(res.statusCode).toBe(200);
      expect(res.json).toEqual([
        { name: 'cup', price: 5, doubled: 10 },
        { name: 'lamp', price: 30, doubled: 60 },
      ]);
    });

    it('setof a scalar: a JSON array of values, filtered and ordered by the function name', async () => {
      expect((await rpc('GET', 'numbers?n=4', bob.token)).json).toEqual([1, 2, 3, 4]);
      expect((await rpc('GET', 'numbers?n=5&numbers=gt.2&order=numbers.desc&limit=2', bob.token)).json).toEqual([5, 4]);
    });

    it('application/vnd.pgrst.object+json: one row as an object, 406 otherwise', async () => {
      const accept = { accept: 'application/vnd.pgrst.object+json' };
      const one = await rpc('GET', 'list_items?select=name&name=eq.pen', t.apiKey, { headers: accept });
      expect(one.statusCode).toBe(200);
      expect(one.headers['content-type']).toContain('application/vnd.pgrst.object+json');
      expect(one.json).toEqual({ name: 'pen' });
      const many = await rpc('GET', 'list_items', t.apiKey, { headers: accept });
      expect(many.statusCode).toBe(406);
      expect(many.json).toMatchObject({ code: 'PGRST116' });
    });

    it('a single-row function answers an object, and null when its row is filtered away', async () => {
      expect((await rpc('GET', 'first_item?select=name', t.apiKey)).json).toEqual({ name: 'lamp' });
      const none = await rpc('GET', 'first_item?name=eq.nothing', t.apiKey);
      expect(none.statusCode).toBe(200);
      expect(none.body).toBe('null');
    });

    it('HEAD answers the headers without a body', async () => {
      const res = await rpc('HEAD', 'list_items', t.apiKey, { headers: { prefer: 'count=exact' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-range']).toBe('0-3/4');
      expect(res.body).toBe('');
    });

    it.each([
      ['an unknown column in select', 'item_stats?select=nope', '42703'],
      ['an unknown column in a filter', 'list_items?nope=eq.1', '42703'],
      ['an embed without a relationship', 'item_stats?select=name,tags(label)', 'PGRST200'],
      ['a malformed filter', 'list_items?price=gt', 'PGRST100'],
    ])('%s → 400', async (_label, path, code) => {
      const res = await rpc('GET', path, t.apiKey);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json).toMatchObject({ code, statusCode: 400 });
    });
  });

  describe('read-only transactions (PostgREST: GET/HEAD, and POST of a function that is not volatile)', () => {
    it('a volatile function that writes, called by GET → 405 25006, and nothing is written', async () => {
      const before = await t.deps.sql`select count(*)::int as n from public.items`;
      const res = await rpc('GET', 'create_item?name=sneak&price=1', alice.token);
      expect(res.statusCode).toBe(405);
      expect(res.json).toMatchObject({
        code: '25006',
        statusCode: 405,
        message: expect.stringContaining('read-only transaction'),
      });
      expect(await t.deps.sql`select count(*)::int as n from public.items`).toEqual(before);
    });

    it('a volatile function that only reads may be called by GET, as PostgREST allows', async () => {
      const res = await rpc('GET', 'count_items', t.apiKey);
      expect(res.statusCode).toBe(200);
      expect(res.json).toBe(4);
    });

    it('a stable function that writes through another one → 405 even by POST, and nothing is written', async () => {
      const res = await rpc('POST', 'sneaky', bob.token, { payload: {} });
      expect(res.statusCode).toBe(405);
      expect(res.json).toMatchObject({ code: '25006' });
      expect(await t.deps.sql`select note from public.calls`).toEqual([]);
    });

    it('a volatile void function by POST writes and answers 204 without a body', async () => {
      const res = await rpc('POST', 'log_call', bob.token, { payload: { note: 'hello' } });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(await t.deps.sql`select note from public.calls`).toEqual([{ note: 'hello' }]);
    });
  });
});

describe('scalar results and arguments', () => {
  it.each<[string, Method, string, unknown, unknown]>([
    ['POST with named arguments', 'POST', 'add', { a: 1, b: 2 }, 3],
    ['GET with arguments in the query string', 'GET', 'add?a=40&b=2', undefined, 42],
    ['numbers given as strings', 'POST', 'add', { a: '7', b: '8' }, 15],
    ['a default', 'POST', 'greet', {}, 'hello world'],
    ['a default given', 'POST', 'greet', { name: 'you' }, 'hello you'],
    ['a default given by GET', 'GET', 'greet?name=there', undefined, 'hello there'],
    ['a JSON true for a boolean', 'POST', 'negate', { b: true }, false],
    ['a JSON false for a boolean', 'POST', 'negate', { b: false }, true],
    ['"true" by GET for a boolean', 'GET', 'negate?b=true', undefined, false],
    ['null', 'POST', 'negate', { b: null }, null],
    ['a date', 'GET', 'next_day?d=2024-02-28', undefined, '2024-02-29'],
    [
      'SQL in a value stays a value',
      'POST',
      'echo_text',
      { s: "'); drop table public.items; --" },
      "'); drop table public.items; --",
    ],
    ['quotes and backslashes', 'GET', `echo_text?s=${encodeURIComponent('a"b\\c')}`, undefined, 'a"b\\c'],
    [
      'a whole JSON body for a single unnamed jsonb parameter',
      'POST',
      'echo_json',
      { x: [1, { y: 'z' }] },
      { x: [1, { y: 'z' }] },
    ],
    ['a JSON array body for it too', 'POST', 'echo_json', [1, 'two'], [1, 'two']],
    ['a variadic parameter given an array', 'POST', 'sum_all', { xs: [1, 2, 3] }, 6],
    ['a variadic parameter repeated in a GET', 'GET', 'sum_all?xs=1&xs=2&xs=39', undefined, 42],
    ['the overload whose parameter names match (a)', 'POST', 'pick', { a: 1 }, 'int'],
    ['the overload whose parameter names match (b)', 'GET', 'pick?b=x', undefined, 'text'],
  ])('%s', async (_label, method, path, payload, expected) => {
    const res = await rpc(method, path, bob.token, payload === undefined ? {} : { payload });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json).toEqual(expected);
  });

  it('an empty JSON body is no arguments', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/database/rpc/greet',
      headers: { ...bearer(bob.token), 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toBe('hello world');
  });

  it('malformed JSON is still a 400', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/database/rpc/greet',
      headers: { ...bearer(bob.token), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
  });

  it('the table a hostile value named is still there', async () => {
    expect(await t.deps.sql`select to_regclass('public.items') is not null as present`).toEqual([{ present: true }]);
  });

  it.each([
    ['alice', () => alice.token, () => alice.id, 'authenticated'],
    ['anon', () => t.anonKey, () => null, 'anon'],
    ['the API key', () => t.apiKey, () => null, 'project_admin'],
  ])('auth.uid() and the role inside a function called by %s', async (_who, token, id, role) => {
    expect((await rpc('POST', 'whoami', token(), { payload: {} })).json).toEqual(id());
    expect((await rpc('GET', 'my_role', token())).json).toBe(role);
  });

  it('the records path serves the same calls (where PostgREST clients send .rpc())', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/database/records/rpc/add',
      headers: bearer(bob.token),
      payload: { a: 2, b: 2 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toBe(4);
  });

  it('a function created a moment ago is found at once', async () => {
    await t.deps.sql.unsafe(`create function public.fresh() returns int language sql immutable as $$ select 7 $$`);
    expect((await rpc('GET', 'fresh', bob.token)).json).toBe(7);
  });
});

describe('errors', () => {
  const searched = (fn: string, params: string, post: boolean) =>
    `Searched for the function public.${fn}${params}${post ? ' or with a single unnamed json/jsonb parameter' : ''}, but no matches were found in the schema cache.`;

  it.each<[string, Method, string, unknown, { message: string; details: string; hint: string | null }]>([
    [
      'an unknown function',
      'POST',
      'nope',
      {},
      {
        message: 'Could not find the function public.nope without parameters in the schema cache',
        details: searched('nope', ' without parameters', true),
        hint: null,
      },
    ],
    [
      'a missing argument without a default',
      'POST',
      'add',
      { a: 1 },
      {
        message: 'Could not find the function public.add(a) in the schema cache',
        details: searched('add', ' with parameter a', true),
        hint: 'Perhaps you meant to call the function public.add(a, b)',
      },
    ],
    [
      'an argument the function does not take',
      'POST',
      'greet',
      { name: 'x', mood: 'happy' },
      {
        message: 'Could not find the function public.greet(mood, name) in the schema cache',
        details: searched('greet', ' with parameters mood, name', true),
        hint: 'Perhaps you meant to call the function public.greet(name)',
      },
    ],
    [
      'a GET with a wrong argument name',
      'GET',
      'add?a=1&c=2',
      undefined,
      {
        message: 'Could not find the function public.add(a, c) in the schema cache',
        details: searched('add', ' with parameters a, c', false),
        hint: 'Perhaps you meant to call the function public.add(a, b)',
      },
    ],
  ])('%s → 404 PGRST202', async (_label, method, path, payload, expected) => {
    const res = await rpc(method, path, bob.token, payload === undefined ? {} : { payload });
    expect(res.statusCode).toBe(404);
    expect(res.json).toMatchObject({ code: 'PGRST202', statusCode: 404, ...expected });
  });

  it('two overloads taking the same names → 300 PGRST203', async () => {
    const res = await rpc('POST', 'amb', bob.token, { payload: { a: 1 } });
    expect(res.statusCode).toBe(300);
    expect(res.json).toMatchObject({
      code: 'PGRST203',
      message: expect.stringContaining('Could not choose the best candidate function between: public.amb(a => '),
    });
  });

  it.each<[string, Method, string, unknown, number, string]>([
    [
      'a GET argument that reads as a filter (as PostgREST sorts them)',
      'GET',
      'echo_text?s=eq',
      undefined,
      400,
      'PGRST100',
    ],
    ['a value that is not of the parameter type', 'POST', 'add', { a: 'x', b: 1 }, 400, '22P02'],
    ['a date that is no date', 'GET', 'next_day?d=garbage', undefined, 400, '22007'],
    ['an exception raised by the function', 'POST', 'fail', {}, 400, 'P0001'],
    ['a body that is not an object, for a function of named parameters', 'POST', 'greet', [1, 2], 400, 'PGRST102'],
    ['a body that is not an object, for a function that needs arguments', 'POST', 'add', [1, 2], 404, 'PGRST202'],
    ['a schema that is not exposed', 'GET', 'add?a=1&b=2&schema=auth', undefined, 406, 'PGRST106'],
  ])('%s → %s %s', async (_label, method, path, payload, status, code) => {
    const res = await rpc(method, path, bob.token, payload === undefined ? {} : { payload });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json).toMatchObject({ code, statusCode: status, message: expect.any(String) });
    expect(res.json).toHaveProperty('details');
    expect(res.json).toHaveProperty('hint');
  });

  it('the exception keeps its message and hint', async () => {
    const res = await rpc('POST', 'fail', bob.token, { payload: {} });
    expect(res.json).toMatchObject({ message: 'nope', hint: 'try again' });
  });

  it('no credential → 401, before any lookup', async () => {
    const res = await rpc('POST', 'add', undefined, { payload: { a: 1, b: 2 } });
    expect(res.statusCode).toBe(401);
    expect(res.json.error).toBe('UNAUTHORIZED');
  });
});

describe('media types and preferences', () => {
  it('text/csv for a set', async () => {
    const res = await rpc('GET', 'numbers?n=3', alice.token, { headers: { accept: 'text/csv' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body).toBe('numbers\n1\n2\n3');
  });

  it.each<[string, Method, string, Record<string, string>, unknown, number, string]>([
    ['an Accept nothing satisfies', 'GET', 'add?a=1&b=2', { accept: 'image/png' }, undefined, 406, 'PGRST107'],
    [
      'an unknown preference with handling=strict',
      'POST',
      'add',
      { prefer: 'handling=strict, x=y' },
      { a: 1, b: 2 },
      400,
      'PGRST122',
    ],
  ])('refuses %s', async (_label, method, path, headers, payload, status, code) => {
    const res = await rpc(method, path, alice.token, { headers, payload });
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ code });
  });

  it('max-affected with handling=strict: a call returning more rows fails and rolls back', async () => {
    const before = (await t.deps.sql`select count(*)::int as n from public.calls`)[0]!.n;
    const res = await rpc('POST', 'log_then_list', alice.token, {
      payload: {},
      headers: { prefer: 'handling=strict, max-affected=1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST124', details: 'The query affects 3 rows' });
    expect((await t.deps.sql`select count(*)::int as n from public.calls`)[0]!.n).toBe(before);
  });

  it('tx=rollback answers the call, then undoes it', async () => {
    const before = (await t.deps.sql`select count(*)::int as n from public.calls`)[0]!.n;
    const res = await rpc('POST', 'log_then_list', alice.token, { payload: {}, headers: { prefer: 'tx=rollback' } });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual([1, 2, 3]);
    expect(res.headers['preference-applied']).toBe('tx=rollback');
    expect((await t.deps.sql`select count(*)::int as n from public.calls`)[0]!.n).toBe(before);
  });
});
