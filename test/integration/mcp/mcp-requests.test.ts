// The requests the official MCP server (@insforge/mcp) sends, replayed byte for byte over HTTP
// against a listening Plinth: metadata with ?mcp=true, the anon key POSTed with a JSON content
// type and no body, and admin SQL creating, altering, filling and dropping a table as agents do.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let base: string;

/** As the MCP server calls: x-api-key, `Content-Type: application/json` on every request. */
async function mcpCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}
const rawSql = (query: string, params: unknown[] = []) =>
  mcpCall('POST', '/api/database/advance/rawsql', { query, params });

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

describe('get-backend-metadata and get-anon-key', () => {
  it('GET /api/metadata?mcp=true answers the overview (unknown query fields are ignored)', async () => {
    const res = await mcpCall('GET', '/api/metadata?mcp=true');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ database: { tables: expect.any(Array) }, version: expect.any(String) });
  });

  it('POST /api/auth/tokens/anon with a JSON content type and an empty body answers the anon key', async () => {
    const res = await mcpCall('POST', '/api/auth/tokens/anon');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.accessToken).toBe(t.anonKey);
  });

  it('a route that takes a body still refuses an empty one with 400', async () => {
    const res = await mcpCall('POST', '/api/database/advance/rawsql');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ statusCode: 400, message: expect.any(String) });
  });
});

describe('run-raw-sql: agents manage the project’s tables', () => {
  it('creates a table that gets RLS, the admin policy and grants, alters it, and the records API sees it', async () => {
    const created = await rawSql(
      'create table notes (id serial primary key, body text not null); insert into notes (body) values ($$hello$$) returning id, body',
    );
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.rows).toEqual([{ id: 1, body: 'hello' }]);

    const [rules] = await t.deps.sql<{ rls: boolean; policies: string[]; anonCanSelect: boolean }[]>`
      select c.relrowsecurity as rls,
             array(select polname::text from pg_policy where polrelid = c.oid) as policies,
             has_table_privilege('anon', c.oid, 'select') as "anonCanSelect"
      from pg_class c where c.oid = 'public.notes'::regclass`;
    expect(rules).toEqual({ rls: true, policies: ['project_admin_all'], anonCanSelect: true });

    // The admin policy is the only one: anon sees no rows, the admin sees them.
    const anon = await t.request({
      method: 'GET',
      url: '/api/database/records/notes',
      headers: { authorization: `Bearer ${t.anonKey}` },
    });
    expect(anon.json).toEqual([]);

    const altered = await rawSql('alter table notes add column done boolean not null default false');
    expect(altered.status, JSON.stringify(altered.json)).toBe(200);
    const records = await t.request({
      method: 'GET',
      url: '/api/database/records/notes',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(records.json).toEqual([{ id: 1, body: 'hello', done: false }]);

    const who = await rawSql('select current_user as who');
    expect(who.json.rows).toEqual([{ who: 'project_admin' }]);
  });

  it('drops a table a migration created', async () => {
    await t.deps.sql.unsafe('create table public.legacy (id int primary key)');
    const dropped = await rawSql('drop table legacy');
    expect(dropped.status, JSON.stringify(dropped.json)).toBe(200);
    const [row] = await t.deps.sql`select to_regclass('public.legacy') is null as gone`;
    expect(row!.gone).toBe(true);
  });

  it('references auth.users in a foreign key and auth.uid() in a policy', async () => {
    const res = await rawSql(
      'create table owned (id uuid primary key default gen_random_uuid(), user_id uuid references auth.users(id) default auth.uid()); create policy mine on owned for select to authenticated using (user_id = auth.uid())',
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
  });

  it.each([
    ['drop table system.secrets', /outside the public schema \(system\)/],
    ['create table auth.sneaky (id int)', /outside the public schema \(auth\)/],
    ['alter table storage.objects disable row level security', /outside the public schema \(storage\)/],
    ['create view leak as select * from auth.users', /outside the public schema \(auth\)/],
    ['drop schema system cascade', /outside the public schema \(a schema\)/],
    ['create schema other', /Creating schemas is not allowed/],
    ['alter table notes owner to project_admin', /an owner change/],
    [
      'create function public.f() returns void language sql as $$ $$; drop function system.bump_schema_version()',
      /system/,
    ],
    ['set role postgres', /Changing role is not allowed/],
  ])('refuses %s with 403 and changes nothing', async (query, message) => {
    const res = await rawSql(query);
    expect(res.status, JSON.stringify(res.json)).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403, message: expect.stringMatching(message) });
    const [row] = await t.deps
      .sql`select to_regclass('system.secrets') is not null as kept, to_regproc('public.f') is null as none`;
    expect(row).toEqual({ kept: true, none: true });
  });
});
