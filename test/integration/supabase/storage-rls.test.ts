// A storage policy written for Supabase (storage.foldername(name), bucket_id, owner_id) governs
// objects through both /storage/v1 (driven by supabase-js) and Plinth's own /api/storage routes:
// user A works in their own folder; user B is refused there on every path.
import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let url: string;
const users: Record<'a' | 'b', { id: string; token: string; sb: SupabaseClient }> = {} as never;

const clientAs = (token: string) =>
  createClient(url, t.anonKey, { accessToken: async () => token, realtime: { transport: class {} as never } });

beforeAll(async () => {
  t = await startTestApp({ env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-sb-rls-')) } });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
  const sql = await readFile(new URL('../../fixtures/supabase/storage-avatars.sql', import.meta.url), 'utf8');
  const applied = await t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: { 'x-api-key': t.apiKey },
    payload: { version: '1', name: 'storage-avatars', sql },
  });
  expect(applied.statusCode, applied.body).toBeLessThan(300);
  for (const who of ['a', 'b'] as const) {
    const { user, accessToken } = await t.signUp();
    users[who] = { id: user.id, token: accessToken, sb: clientAs(accessToken) };
  }
});
afterAll(() => t.close());

const png = (text: string) => new Blob([text], { type: 'image/png' });

describe('a Supabase folder policy on storage.objects', () => {
  it('lets user A upload to, list and download their own folder through supabase-js', async () => {
    const { a } = users;
    const up = await a.sb.storage.from('avatars').upload(`${a.id}/me.png`, png('A1'));
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ path: `${a.id}/me.png`, fullPath: `avatars/${a.id}/me.png` });
    expect(up.data?.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await a.sb.storage.from('avatars').list(a.id);
    expect(listed.error).toBeNull();
    expect(listed.data?.map((f) => f.name)).toEqual(['me.png']);
    const down = await a.sb.storage.from('avatars').download(`${a.id}/me.png`);
    expect(await down.data?.text()).toBe('A1');
  });

  it('stores Supabase columns a policy reads: bucket_id, name, owner, owner_id, metadata', async () => {
    const [row] = await t.deps.sql`
      select bucket_id, name, owner, owner_id, metadata, storage.foldername(name) as folders,
        storage.filename(name) as file, storage.extension(name) as ext
      from storage.objects where bucket = 'avatars' and key = ${`${users.a.id}/me.png`}`;
    expect(row).toMatchObject({
      bucket_id: 'avatars',
      name: `${users.a.id}/me.png`,
      owner: users.a.id,
      owner_id: users.a.id,
      folders: [users.a.id],
      file: 'me.png',
      ext: 'png',
    });
    expect(row!.metadata).toMatchObject({ size: 2, mimetype: 'image/png', cacheControl: 'max-age=3600' });
  });

  it('refuses user B writing into A’s folder through supabase-js (403) and stores nothing', async () => {
    const { a, b } = users;
    const up = await b.sb.storage.from('avatars').upload(`${a.id}/evil.png`, png('B'));
    expect(up.data).toBeNull();
    expect(up.error).toMatchObject({ status: 403, statusCode: '403' });
    const overwrite = await b.sb.storage.from('avatars').update(`${a.id}/me.png`, png('B'));
    expect(overwrite.error).toMatchObject({ status: 403 });
    const signed = await b.sb.storage.from('avatars').createSignedUploadUrl(`${a.id}/evil2.png`);
    expect(signed.error).toMatchObject({ status: 403 });
    const keys = await t.deps.sql`select key from storage.objects where bucket = 'avatars' order by key`;
    expect(keys.map((r) => r.key)).toEqual([`${a.id}/me.png`]);
    const still = await a.sb.storage.from('avatars').download(`${a.id}/me.png`);
    expect(await still.data?.text()).toBe('A1');
  });

  it('hides A’s objects from user B through supabase-js: download, info, list, sign, move, copy, remove', async () => {
    const { a, b } = users;
    const bucket = b.sb.storage.from('avatars');
    const down = await bucket.download(`${a.id}/me.png`);
    expect(down.error).toMatchObject({ status: 404 });
    expect((await bucket.exists(`${a.id}/me.png`)).data).toBe(false);
    expect((await bucket.list(a.id)).data).toEqual([]);
    expect((await bucket.list()).data).toEqual([]);
    expect((await bucket.createSignedUrl(`${a.id}/me.png`, 60)).error).toMatchObject({ status: 404 });
    expect((await bucket.move(`${a.id}/me.png`, `${b.id}/stolen.png`)).error).toMatchObject({ status: 404 });
    expect((await bucket.copy(`${a.id}/me.png`, `${b.id}/stolen.png`)).error).toMatchObject({ status: 404 });
    expect((await bucket.remove([`${a.id}/me.png`])).data).toEqual([]);
    const keys = await t.deps.sql`select key from storage.objects where bucket = 'avatars' order by key`;
    expect(keys.map((r) => r.key)).toEqual([`${a.id}/me.png`]);
  });

  it('refuses A moving an object into B’s folder (the policy’s WITH CHECK on the new name)', async () => {
    const { a, b } = users;
    const moved = await a.sb.storage.from('avatars').move(`${a.id}/me.png`, `${b.id}/gift.png`);
    expect(moved.error).toMatchObject({ status: 403 });
    const ok = await a.sb.storage.from('avatars').move(`${a.id}/me.png`, `${a.id}/moved.png`);
    expect(ok.error).toBeNull();
    const back = await a.sb.storage.from('avatars').move(`${a.id}/moved.png`, `${a.id}/me.png`);
    expect(back.error).toBeNull();
  });

  it('applies the same policy on Plinth’s own /api/storage routes', async () => {
    const { a, b } = users;
    const put = (who: 'a' | 'b', key: string) =>
      t.request({
        method: 'PUT',
        url: `/api/storage/buckets/avatars/objects/${key}`,
        headers: { ...bearer(users[who].token), 'content-type': 'image/png' },
        payload: who,
      });
    expect((await put('a', `${a.id}/plinth.png`)).statusCode).toBe(200);
    const refused = await put('b', `${a.id}/plinth-evil.png`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json.error).toBe('STORAGE_PERMISSION_DENIED');
    const get = (who: 'a' | 'b', key: string) =>
      t.request({
        method: 'GET',
        url: `/api/storage/buckets/avatars/objects/${key}`,
        headers: bearer(users[who].token),
      });
    expect((await get('a', `${a.id}/me.png`)).body).toBe('A1');
    expect((await get('b', `${a.id}/me.png`)).statusCode).toBe(404);
    const listB = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/avatars/objects',
      headers: bearer(b.token),
    });
    expect(listB.json.data).toEqual([]);
    const delB = await t.request({
      method: 'DELETE',
      url: `/api/storage/buckets/avatars/objects/${a.id}/me.png`,
      headers: bearer(b.token),
    });
    expect(delB.statusCode).toBe(404);
    // What A wrote through Plinth's route, A sees through supabase-js.
    const listed = await a.sb.storage.from('avatars').list(a.id);
    expect(listed.data?.map((f) => f.name)).toEqual(['me.png', 'plinth.png']);
  });

  it('a signed upload URL is issued to A for A’s folder, and the row names A as owner', async () => {
    const { a } = users;
    const signed = await a.sb.storage.from('avatars').createSignedUploadUrl(`${a.id}/signed.png`);
    expect(signed.error).toBeNull();
    // Used without any credential, as a browser handed the URL would.
    const anonymous = createClient(url, t.anonKey, { realtime: { transport: class {} as never } });
    const up = await anonymous.storage
      .from('avatars')
      .uploadToSignedUrl(`${a.id}/signed.png`, signed.data!.token, png('signed'));
    expect(up.error).toBeNull();
    expect(up.data?.fullPath).toBe(`avatars/${a.id}/signed.png`);
    const [row] = await t.deps
      .sql`select owner from storage.objects where bucket = 'avatars' and key = ${`${a.id}/signed.png`}`;
    expect(row!.owner).toBe(a.id);
    // The token names its key: it writes no other.
    const other = await anonymous.storage
      .from('avatars')
      .uploadToSignedUrl(`${a.id}/other.png`, signed.data!.token, png('x'));
    expect(other.error).toMatchObject({ status: 401 });
  });

  it('B deletes only their own objects (policy on owner_id)', async () => {
    const { a, b } = users;
    expect((await b.sb.storage.from('avatars').upload(`${b.id}/mine.png`, png('B'))).error).toBeNull();
    const removed = await b.sb.storage.from('avatars').remove([`${b.id}/mine.png`, `${a.id}/me.png`]);
    expect(removed.data?.map((o) => o.name)).toEqual([`${b.id}/mine.png`]);
    expect((await a.sb.storage.from('avatars').exists(`${a.id}/me.png`)).data).toBe(true);
  });
});
