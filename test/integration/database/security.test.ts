// The admin SQL guard against escapes: SQL hidden in DO blocks and function bodies, dynamic
// EXECUTE, and the server-file, program and large-object functions. Each is a 403 that names the
// reason, nothing runs, and ordinary DO blocks and functions still work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const rawSql = (query: string, unrestricted = false) =>
  t.request({
    method: 'POST',
    url: `/api/database/advance/rawsql${unrestricted ? '/unrestricted' : ''}`,
    headers: { 'x-api-key': t.apiKey },
    payload: { query },
  });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const refused: [string, string, RegExp][] = [
  [
    'RESET role through EXECUTE in a DO block',
    "do $$ begin execute 'reset role'; end $$; select current_user::text as who",
    /EXECUTE/,
  ],
  [
    'set_config inside a DO block',
    "do $$ begin perform set_config('role', session_user, true); end $$; select current_user::text as who",
    /set_config/,
  ],
  ['COPY … PROGRAM through EXECUTE', "do $$ begin execute 'copy (select 1) to program ''true'''; end $$", /EXECUTE/],
  [
    'set_config inside a SQL function body',
    "create function public.esc() returns text language sql as $$ select set_config('role', session_user, true) $$",
    /set_config/,
  ],
  [
    'RESET role inside a plpgsql function body',
    'create function public.esc2() returns void language plpgsql as $$ begin reset role; end $$',
    /role/,
  ],
  [
    'UPDATE pg_settings (the same as SET role)',
    "update pg_settings set setting = 'none' where name = 'role'; select current_user::text as who",
    /pg_settings/,
  ],
  [
    'UPDATE pg_settings inside a SQL function body',
    "create function public.esc3() returns void language sql as $$ update pg_settings set setting = '0' where name = 'statement_timeout' $$",
    /pg_settings/,
  ],
  ['pg_read_file', "select pg_read_file('/etc/hostname')", /pg_read_file/],
  ['lo_import', "select lo_import('/etc/hostname')", /lo_import/],
  ['query_to_xml (runs SQL from a string)', "select query_to_xml('select 1', true, true, '')", /query_to_xml/],
  [
    'CREATE SUBSCRIPTION (outbound connections)',
    "create subscription esc_sub connection 'host=127.0.0.1 dbname=x' publication p with (connect = false)",
    /subscription/i,
  ],
  [
    'CREATE SERVER (foreign data)',
    "create server esc_srv foreign data wrapper postgres_fdw options (host '127.0.0.1')",
    /foreign/i,
  ],
  ['an untrusted procedural language', "do language plperlu $$ system('true') $$", /language/i],
];

describe('the guard sees into DO blocks and function bodies', () => {
  for (const unrestricted of [false, true]) {
    for (const [what, sql, reason] of refused) {
      it(`${unrestricted ? 'unrestricted' : 'project_admin'}: refuses ${what} with a 403`, async () => {
        const res = await rawSql(sql, unrestricted);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403 });
        expect(res.json.message).toMatch(reason);
      });
    }
  }

  it('nothing of a refused request ran', async () => {
    const [row] = await t.deps
      .sql`select to_regprocedure('public.esc()') as esc, to_regprocedure('public.esc2()') as esc2`;
    expect(row).toEqual({ esc: null, esc2: null });
  });

  it('ordinary DO blocks and functions still run', async () => {
    const created = await rawSql(
      'create function public.plus_one(x int) returns int language plpgsql as $$ declare y int; begin y := x + 1; return y; end $$;' +
        ' create function public.twice(x int) returns int language sql as $$ select x * 2 $$',
      true,
    );
    expect(created.statusCode, created.body).toBe(200);
    const res = await rawSql(
      "do $$ declare n int; begin select count(*) into n from pg_class; if n < 0 then raise exception 'no'; end if; end $$;" +
        ' select public.plus_one(1) as a, public.twice(2) as b, current_user::text as who',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.rows).toEqual([{ a: 2, b: 4, who: 'project_admin' }]);
  });
});

describe('nothing of an admin request outlives it on the server connection it used', () => {
  it('a session advisory lock is released: key rotation (same lock) still answers', async () => {
    const locked = await rawSql("select pg_advisory_lock(hashtext('plinth.platform_keys'))", true);
    expect(locked.statusCode, locked.body).toBe(200);
    expect(
      (
        await t.deps.sql`select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and d.datname = current_database() and l.pid <> pg_backend_pid()`
      )[0]!.n,
    ).toBe(0);
    const rotated = await t.request({
      method: 'POST',
      url: '/api/secrets/anon-key/rotate',
      headers: { 'x-api-key': t.apiKey },
      payload: {},
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
  }, 15_000);

  it('temporary tables are dropped (they would shadow public tables on later requests)', async () => {
    const res = await rawSql('create temp table books (id int); select 1 as ok', true);
    expect(res.statusCode, res.body).toBe(200);
    expect(
      (await t.deps.sql`select count(*)::int as n from pg_class where relname = 'books' and relpersistence = 't'`)[0]!
        .n,
    ).toBe(0);
  });

  it('PREPARE is refused (a prepared statement would outlive the request)', async () => {
    const res = await rawSql('prepare leaked as select 1');
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json.message).toMatch(/PREPARE/);
  });
});

describe('refused functions reached by reference, not by a call', () => {
  it('an aggregate whose state function is set_config is refused (it would reset the role)', async () => {
    for (const unrestricted of [false, true]) {
      const res = await rawSql(
        "create aggregate pg_temp.esc_agg(text, boolean) (sfunc = set_config, stype = text, initcond = 'role'); select pg_temp.esc_agg('none', true), current_user::text as who",
        unrestricted,
      );
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json.message).toMatch(/set_config/);
    }
  });
});
