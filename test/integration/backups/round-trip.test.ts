// Backups through the API and the official client: a project (schema objects of every kind, users,
// rows, policies, grants) is backed up, changed, and restored; afterwards the client sees exactly
// what it saw at backup time, users sign in with their passwords, policies still decide, and what
// was created after the backup is gone, and stored files come back with their bytes. The archive
// downloads as gzip.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSdkApp, type SdkApp } from '../sdk/sdk-app.js';

let s: SdkApp;
const password = 'backup-password-1';
const email = (who: string) => `${who}-${randomBytes(4).toString('hex')}@example.com`;
const aliceEmail = email('alice');

const asAdmin = (method: string, url: string, payload?: unknown) =>
  s.t.request({ method: method as 'GET', url, headers: { 'x-api-key': s.t.apiKey }, payload: payload as object });

async function completedBackup(name?: string): Promise<string> {
  const created = await asAdmin('POST', '/api/database/backups', name ? { name } : undefined);
  expect(created.statusCode).toBe(201);
  expect(created.json).toMatchObject({ status: 'running', completedAt: null, sizeBytes: null, createdBy: 'api-key' });
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      const row = json.backups.find((b: { id: string }) => b.id === created.json.id);
      expect(row.status).toBe('completed');
    },
    { timeout: 20_000, interval: 50 },
  );
  return created.json.id;
}

async function signIn(address: string) {
  const client = s.client({ isServerMode: true });
  const { data, error } = await client.auth.signInWithPassword({ email: address, password });
  return { client, data, error };
}

beforeAll(async () => {
  s = await startSdkApp();
  await s.t.deps.sql.unsafe(`
    create type public.mood as enum ('happy', 'sad', 'it''s complicated');
    create sequence public.ticket_seq start 100;
    create table public.notes (
      id bigint generated always as identity primary key,
      owner uuid not null default auth.uid() references auth.users (id) on delete cascade,
      body text not null check (length(body) > 0),
      mood public.mood not null default 'happy',
      ticket int not null default nextval('public.ticket_seq'),
      shared boolean not null default false,
      body_length int generated always as (length(body)) stored,
      updated_count int not null default 0
    );
    create index notes_owner on public.notes (owner, id);
    create policy owner_all on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create policy shared_read on public.notes for select to anon using (shared);
    create function public.count_updates() returns trigger language plpgsql as $$
      begin new.updated_count := old.updated_count + 1; return new; end $$;
    create trigger notes_count before update on public.notes for each row execute function public.count_updates();
    create view public.shared_notes with (security_invoker = true) as select id, body from public.notes where shared;
    create function public.double_it(n int) returns int language sql immutable as $$ select n * 2 $$;
    create table public.audit_free (id serial primary key, label text);
    revoke delete on public.audit_free from anon, authenticated;
    create schema app;
    create table app.settings (key text primary key, value jsonb);
    insert into app.settings values ('theme', '{"dark": true}');
  `);
  const { data, error } = await s.client({ isServerMode: true }).auth.signUp({ email: aliceEmail, password });
  if (error) throw error;
  expect(data?.accessToken).toBeTruthy();
  const alice = (await signIn(aliceEmail)).client;
  const inserted = await alice.database
    .from('notes')
    .insert(
      [
        { body: 'first', mood: "it's complicated" },
        { body: 'public one', shared: true },
      ],
      { defaultToNull: false },
    )
    .select();
  expect(inserted.error).toBeNull();
  await alice.database.from('notes').update({ body: 'first, edited' }).eq('body', 'first');
  await s.t.deps.sql`insert into public.audit_free (label) values ('a'), ('b')`;
  expect((await asAdmin('POST', '/api/storage/buckets', { bucketName: 'docs', isPublic: false })).statusCode).toBe(201);
  const uploaded = await alice.storage.from('docs').upload('alice/kept.txt', new Blob(['file at backup time']));
  expect(uploaded.error).toBeNull();
}, 60_000);
afterAll(() => s?.close());

describe('backup, change, restore', () => {
  it('brings the project back exactly as it was at backup time', async () => {
    const alice = (await signIn(aliceEmail)).client;
    const before = await alice.database.from('notes').select('*').order('id');
    expect(before.data).toHaveLength(2);
    const id = await completedBackup('before-changes');

    // Changes after the backup: new user, rows, a table, a dropped policy, a changed sequence, a
    // deleted file whose bytes are gone from the blob store too (as on a fresh server).
    const { blobId } = (
      await s.t.deps.sql`select blob_id::text as "blobId" from storage.objects where key = 'alice/kept.txt'`
    )[0]!;
    expect((await alice.storage.from('docs').remove('alice/kept.txt')).error).toBeNull();
    await s.t.deps.blobStore.remove(blobId);
    const bobEmail = email('bob');
    expect((await s.client({ isServerMode: true }).auth.signUp({ email: bobEmail, password })).error).toBeNull();
    await alice.database.from('notes').insert([{ body: 'after backup' }], { defaultToNull: false });
    await alice.database.from('notes').delete().eq('body', 'public one');
    await s.t.deps.sql.unsafe(`
      create table public.created_later (id int primary key);
      drop policy shared_read on public.notes;
      update app.settings set value = '{"dark": false}';
      select setval('public.ticket_seq', 5000);
    `);

    const restored = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json).toEqual({ message: 'Database restored successfully' });

    // Alice signs in again and sees exactly her rows of backup time; Bob never existed.
    const again = await signIn(aliceEmail);
    expect(again.error).toBeNull();
    const after = await again.client.database.from('notes').select('*').order('id');
    expect(after.error).toBeNull();
    expect(after.data).toEqual(before.data);
    const bob = await signIn(bobEmail);
    expect(bob.data?.accessToken ?? null).toBeNull();

    // Policies still decide: anon reads only shared rows (the dropped policy is back).
    const anon = await s.client().database.from('notes').select('body');
    expect(anon.data).toEqual([{ body: 'public one' }]);

    // What came after the backup is gone; the records API no longer knows the table.
    const later = await again.client.database.from('created_later').select('*');
    expect(later.error).not.toBeNull();
    const { exists } = (await s.t.deps.sql`select to_regclass('public.created_later') is not null as exists`)[0]!;
    expect(exists).toBe(false);

    // Identity, sequence positions, defaults, triggers, generated columns, views, functions, enums.
    const next = await again.client.database
      .from('notes')
      .insert([{ body: 'new after restore' }], { defaultToNull: false })
      .select();
    expect(next.error).toBeNull();
    const maxBefore = Math.max(...(before.data as { id: number }[]).map((r) => Number(r.id)));
    expect(Number(next.data![0].id)).toBe(maxBefore + 1);
    expect(next.data![0].ticket).toBe(102);
    expect(next.data![0].body_length).toBe('new after restore'.length);
    const edited = await again.client.database.from('notes').update({ body: 'x' }).eq('body', 'x').select();
    expect(edited.error).toBeNull();
    const [row] = await s.t.deps.sql`select updated_count from public.notes where body = 'first, edited'`;
    expect(row?.updated_count).toBe(1);
    const rpc = await again.client.database.rpc('double_it', { n: 21 });
    expect(rpc.data).toBe(42);
    const shared = await again.client.database.from('shared_notes').select('body');
    expect(shared.error).toBeNull();
    const [settings] = await s.t.deps.sql`select value from app.settings where key = 'theme'`;
    expect(settings?.value).toEqual({ dark: true });
    const [grants] = await s.t.deps.sql`
      select has_table_privilege('authenticated', 'public.audit_free', 'DELETE') as del,
             has_table_privilege('authenticated', 'public.audit_free', 'INSERT') as ins`;
    expect(grants).toEqual({ del: false, ins: true });

    // The file is back, bytes included.
    const file = await again.client.storage.from('docs').download('alice/kept.txt');
    expect(file.error).toBeNull();
    expect(await file.data!.text()).toBe('file at backup time');

    // The backup list itself survived the restore.
    const list = await asAdmin('GET', '/api/database/backups');
    expect(list.json.backups.map((b: { id: string }) => b.id)).toContain(id);
  });

  it('downloads the archive as gzip, renames, and deletes a backup', async () => {
    const id = await completedBackup();
    const download = await asAdmin('GET', `/api/database/backups/${id}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect(gunzipSync(download.rawPayload).toString('utf8')).toMatch(/^PLINTH-BACKUP 1\n/);

    const renamed = await asAdmin('PATCH', `/api/database/backups/${id}`, { name: 'kept' });
    expect(renamed.json.name).toBe('kept');
    const dup = await asAdmin('POST', '/api/database/backups', { name: 'kept' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json.error).toBe('DATABASE_DUPLICATE');

    expect((await asAdmin('DELETE', `/api/database/backups/${id}`)).json).toEqual({
      message: 'Backup deleted successfully',
    });
    expect((await asAdmin('GET', `/api/database/backups/${id}/download`)).json.error).toBe('DATABASE_NOT_FOUND');
    expect((await asAdmin('DELETE', '/api/database/backups/not-a-uuid')).statusCode).toBe(400);
  });
});
