// SQL written for Supabase, applied as is through Plinth's migration route: the profiles
// migration's handle_new_user trigger on auth.users fires on a sign-up through Plinth's own
// sign-up route (reading raw_user_meta_data), a failing trigger fails the sign-up with nothing
// left behind, and grants written `to service_role` reach the API key (project_admin is a member).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { applyFixture, supabaseClient } from './rest-harness.js';

let t: TestApp;
let url: string;

const migrate = (version: string, sql: string) =>
  t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: { 'x-api-key': t.apiKey },
    payload: { version, name: `compat-${version}`, sql },
  });

const signUp = (email: string, name?: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/users?client_type=mobile',
    payload: { email, password: 'correct-horse-9', ...(name ? { name } : {}) },
  });

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await applyFixture(t, '20240101000000_profiles.sql');
});
afterAll(() => t.close());

describe('the profiles migration', () => {
  it('handle_new_user fires on a sign-up through Plinth’s own route, reading raw_user_meta_data', async () => {
    const res = await signUp('ada@example.com', 'Ada Lovelace');
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json.user.id;
    const anon = supabaseClient(url, t.anonKey);
    const { data, error } = await anon.from('profiles').select('id, full_name, username').eq('id', id);
    expect(error).toBeNull();
    expect(data).toEqual([{ id, full_name: 'Ada Lovelace', username: null }]);
    const [user] = await t.deps.sql`select raw_user_meta_data, raw_app_meta_data from auth.users where id = ${id}`;
    expect(user).toEqual({ raw_user_meta_data: { name: 'Ada Lovelace' }, raw_app_meta_data: {} });
  });

  it('a user updates their own profile and no one else’s', async () => {
    const a = await signUp('grace@example.com', 'Grace');
    const b = await signUp('linus@example.com', 'Linus');
    const grace = supabaseClient(url, t.anonKey, a.json.accessToken);
    const mine = await grace.from('profiles').update({ username: 'grace' }).eq('id', a.json.user.id).select().single();
    expect(mine.error).toBeNull();
    expect(mine.data).toMatchObject({ username: 'grace', full_name: 'Grace' });
    const theirs = await grace.from('profiles').update({ username: 'stolen' }).eq('id', b.json.user.id).select();
    expect(theirs).toMatchObject({ data: [], error: null });
    const short = await grace.from('profiles').update({ username: 'g' }).eq('id', a.json.user.id);
    expect(short.error).toMatchObject({ code: '23514' });
  });

  it('a trigger that raises fails the sign-up, and leaves no user behind', async () => {
    const res = await migrate(
      '20240102000000',
      `create function public.refuse_blocked() returns trigger language plpgsql security definer set search_path = '' as $$
       begin
         if new.email like '%@blocked.example' then raise exception 'blocked domain'; end if;
         return new;
       end; $$;
       create trigger refuse_blocked before insert on auth.users for each row execute function public.refuse_blocked();`,
    );
    expect(res.statusCode, res.body).toBe(201);
    const refused = await signUp('eve@blocked.example', 'Eve');
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(await t.deps.sql`select 1 from auth.users where email = 'eve@blocked.example'`).toHaveLength(0);
    expect((await signUp('bob@example.com')).statusCode).toBe(200);
  });
});

describe('service_role', () => {
  it('exists, and the API key’s role holds what is granted to it', async () => {
    const res = await migrate(
      '20240103000000',
      `create function public.purge_everything() returns text language sql as $$ select 'purged' $$;
       revoke execute on function public.purge_everything() from public, anon, authenticated, project_admin;
       grant execute on function public.purge_everything() to service_role;`,
    );
    expect(res.statusCode, res.body).toBe(201);
    const service = await supabaseClient(url, t.apiKey).rpc('purge_everything');
    expect(service).toMatchObject({ data: 'purged', error: null });
    const anon = await supabaseClient(url, t.anonKey).rpc('purge_everything');
    expect(anon.status).toBe(401);
    expect(anon.error).toMatchObject({ code: '42501' });
    const user = await t.signUp();
    const authenticated = await supabaseClient(url, t.anonKey, user.accessToken).rpc('purge_everything');
    expect(authenticated.status).toBe(403);
  });

  it('policies written `to service_role` apply to the API key, not to users', async () => {
    const res = await migrate(
      '20240104000000',
      `create table public.jobs (id bigint generated by default as identity primary key, payload text);
       alter table public.jobs enable row level security;
       create policy "service only" on public.jobs for all to service_role using (true) with check (true);
       insert into public.jobs (payload) values ('nightly');`,
    );
    expect(res.statusCode, res.body).toBe(201);
    expect((await supabaseClient(url, t.apiKey).from('jobs').select('payload')).data).toEqual([{ payload: 'nightly' }]);
    const user = await t.signUp();
    expect((await supabaseClient(url, t.anonKey, user.accessToken).from('jobs').select('payload')).data).toEqual([]);
  });

  it('extensions install into the extensions schema and are callable there', async () => {
    const res = await migrate(
      '20240105000000',
      `create extension if not exists pgcrypto with schema extensions;
       create function public.token_hex() returns text language sql as $$ select encode(extensions.gen_random_bytes(8), 'hex') $$;`,
    );
    expect(res.statusCode, res.body).toBe(201);
    const { data, error } = await supabaseClient(url, t.anonKey).rpc('token_hex');
    expect(error).toBeNull();
    expect(data).toMatch(/^[0-9a-f]{16}$/);
  });
});
