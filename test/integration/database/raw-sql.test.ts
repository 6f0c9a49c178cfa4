// Admin SQL, table names and database metadata as a client sees them: parameters, the statement
// timeout, the admin SQL guard, project_admin (row-level security) versus the owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const key = () => ({ 'x-api-key': t.apiKey });
const rawSql = (payload: Record<string, unknown>, unrestricted = false) =>
  t.request({
    method: 'POST',
    url: `/api/database/advance/rawsql${unrestricted ? '/unrestricted' : ''}`,
    headers: key(),
    payload,
  });

beforeAll(async () => {
  t = await startTestApp({ env: { RAW_SQL_TIMEOUT_MS: '300' } });
  await t.deps.sql.unsafe(`
    create table public.books (id int primary key, title text not null);
    insert into public.books select g, 'book ' || g from generate_series(1, 3) g;
    create table public.shelves (id int primary key);
    create table public.hidden (id int primary key);
    alter table public.hidden force row level security;
    drop policy project_admin_all on public.hidden;
    insert into public.shelves values (1);`);
});
afterAll(() => t.close());

describe('POST /api/database/advance/rawsql', () => {
  it('runs a query with parameters and answers rows, rowCount and fields', async () => {
    const res = await rawSql({ query: 'select id, title from books where id >= $1 order by id', params: [2] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({
      rows: [
        { id: 2, title: 'book 2' },
        { id: 3, title: 'book 3' },
      ],
      rowCount: 2,
      fields: [
        { name: 'id', dataTypeID: 23 },
        { name: 'title', dataTypeID: 25 },
      ],
    });
  });

  it('writes, answering the affected row count, and runs several statements in one transaction', async () => {
    const res = await rawSql({
      query:
        "insert into books values (10, 'ten'); update books set title = upper(title) where id = 10 returning title",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({ rows: [{ title: 'TEN' }], rowCount: 1 });
    const failing = await rawSql({
      query: "insert into books values (11, 'eleven'); insert into books values (11, 'again')",
    });
    expect(failing.statusCode).toBe(409); // 23505 answers 409 everywhere (issue 33)
    expect(failing.json.message).toMatch(/^Statement 2 failed: duplicate key value/);
    expect((await rawSql({ query: 'select count(*)::int as n from books where id = 11' })).json.rows).toEqual([
      { n: 0 },
    ]);
  });

  it('runs as project_admin: row-level security applies; DDL on public runs as the owner (issue 20)', async () => {
    const who = await rawSql({
      query: "select current_user as who, auth.role() as role, current_setting('search_path') as path",
    });
    expect(who.json.rows).toEqual([{ who: 'project_admin', role: 'project_admin', path: 'public' }]);
    expect((await rawSql({ query: 'select count(*)::int as n from hidden' })).json.rows).toEqual([{ n: 0 }]);
    const ddl = await rawSql({ query: 'create table made_by_admin (id int); select current_user as who' });
    expect(ddl.statusCode, ddl.body).toBe(200);
    expect(ddl.json.rows).toEqual([{ who: 'project_admin' }]);
    const outside = await rawSql({ query: 'create table system.sneaky (id int)' });
    expect(outside.statusCode).toBe(403);
    expect(outside.json).toMatchObject({
      error: 'FORBIDDEN',
      message: expect.stringMatching(/outside the public schema/),
    });
  });

  it('the unrestricted variant runs as the database owner, and the records API sees its DDL at once', async () => {
    const res = await rawSql(
      {
        query:
          "create table made_raw (id int primary key); insert into made_raw values (7); select current_user <> 'project_admin' as owner",
      },
      true,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.rows).toEqual([{ owner: true }]);
    const records = await t.request({ method: 'GET', url: '/api/database/records/made_raw', headers: key() });
    expect(records.json).toEqual([{ id: 7 }]);
  });

  it('stops a statement at the statement timeout → 504, and the connection keeps no timeout', async () => {
    const res = await rawSql({ query: 'select pg_sleep(5)' });
    expect(res.statusCode).toBe(504);
    expect(res.json).toMatchObject({
      error: 'GATEWAY_TIMEOUT',
      message: expect.stringMatching(/canceling statement due to statement timeout/),
    });
    const settings = await Promise.all(Array.from({ length: 8 }, () => t.deps.sql`show statement_timeout`));
    for (const [row] of settings) expect(row!.statement_timeout).toBe('0');
  });

  // The guard's refusals are 403 FORBIDDEN, as the reference platform answers (api-contract §3.2).
  it.each([
    [
      'transaction control',
      { query: 'begin; select 1; commit' },
      403,
      /Transaction control statements are not allowed \(BEGIN\)/,
    ],
    ['SET ROLE', { query: 'set role postgres' }, 403, /Changing role is not allowed/],
    ['set_config', { query: "select set_config('role', 'postgres', false)" }, 403, /set_config\(\) is not allowed/],
    [
      'SET statement_timeout',
      { query: 'set statement_timeout = 0; select pg_sleep(1)' },
      403,
      /Changing statement_timeout/,
    ],
    ['SQL that does not parse', { query: 'selec 1' }, 403, /does not parse/],
    ['parameters with several statements', { query: 'select $1::int; select 2', params: [1] }, 400, /single statement/],
    ['an empty query', { query: '  ' }, 400, /must not be empty/],
    ['comments only', { query: '-- hi' }, 400, /contains no statements/],
  ])('%s → %i', async (_label, payload, status, message) => {
    for (const unrestricted of [false, true]) {
      const res = await rawSql(payload, unrestricted);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json).toMatchObject({ error: status === 403 ? 'FORBIDDEN' : 'VALIDATION_ERROR', statusCode: status });
      expect(res.json.message).toMatch(message);
    }
  });
});

describe('tables and metadata', () => {
  it('GET /api/database/tables lists the public base tables', async () => {
    const res = await t.request({ method: 'GET', url: '/api/database/tables', headers: key() });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual(expect.arrayContaining(['books', 'shelves', 'hidden']));
    expect(res.json).toEqual([...res.json].sort());
  });

  it("GET /api/metadata/database answers the spec's shape with exact counts", async () => {
    t.clock.advance(60_000);
    const res = await t.request({ method: 'GET', url: '/api/metadata/database', headers: key() });
    expect(res.statusCode, res.body).toBe(200);
    const tables = res.json.tables as { name: string; recordCount: number }[];
    expect(tables).toEqual(
      expect.arrayContaining([
        { name: 'books', recordCount: 4 },
        { name: 'shelves', recordCount: 1 },
        { name: 'hidden', recordCount: 0 },
      ]),
    );
    expect(res.json.totalTables).toBe(tables.length);
    expect(res.json.totalRecords).toBe(tables.reduce((s, x) => s + x.recordCount, 0));
    expect(res.json.databaseSize).toMatch(/^\d+ (bytes|kB|MB|GB)$/);
    expect(res.json.lastUpdated).toBe(t.clock.now().toISOString());
  });
});
