// Supabase's storage API on /storage/v1, driven by supabase-js 2.119.1 against a listening Plinth:
// buckets, uploads (multipart and raw, x-upsert), listing by folder, downloads, public and signed
// URLs (expiry on the injected clock), signed uploads, info/exists, move/copy/remove, bucket limits,
// and storage-api's error shape.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let url: string;
let service: SupabaseClient;
let anon: SupabaseClient;
let user: SupabaseClient;

const noRealtime = { transport: class {} as never };
const text = (s: string, type = 'text/plain') => new Blob([s], { type });

beforeAll(async () => {
  t = await startTestApp({ env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-sb-api-')) } });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
  service = createClient(url, t.apiKey, { realtime: noRealtime });
  anon = createClient(url, t.anonKey, { realtime: noRealtime });
  const { accessToken } = await t.signUp();
  user = createClient(url, t.anonKey, { accessToken: async () => accessToken, realtime: noRealtime });
});
afterAll(() => t.close());

describe('buckets', () => {
  it('the service key creates, reads, updates, empties and deletes a bucket', async () => {
    const created = await service.storage.createBucket('docs', { public: false });
    expect(created).toEqual({ data: { name: 'docs' }, error: null });
    const again = await service.storage.createBucket('docs');
    expect(again.error).toMatchObject({ status: 409, statusCode: '409' });
    const got = await service.storage.getBucket('docs');
    expect(got.data).toMatchObject({ id: 'docs', name: 'docs', public: false, file_size_limit: null });
    const listed = await user.storage.listBuckets();
    expect(listed.data?.map((b) => b.id)).toContain('docs');
    expect((await service.storage.updateBucket('docs', { public: true })).error).toBeNull();
    expect((await service.storage.getBucket('docs')).data?.public).toBe(true);
    await service.storage.from('docs').upload('a.txt', text('a'));
    const refused = await service.storage.deleteBucket('docs');
    expect(refused.error).toMatchObject({ status: 409 });
    expect((await service.storage.emptyBucket('docs')).data).toEqual({ message: 'Successfully emptied' });
    expect((await service.storage.deleteBucket('docs')).data).toEqual({ message: 'Successfully deleted' });
    const gone = await service.storage.getBucket('docs');
    expect(gone.error).toMatchObject({ status: 404, statusCode: '404', message: 'Bucket not found' });
  });

  it('refuses bucket changes to the anon key and to users (403 in storage-api’s shape)', async () => {
    for (const client of [anon, user]) {
      const res = await client.storage.createBucket('nope');
      expect(res.error).toMatchObject({ status: 403, statusCode: '403' });
    }
    const raw = await fetch(`${url}/storage/v1/bucket`, {
      method: 'POST',
      headers: { apikey: t.anonKey, authorization: `Bearer ${t.anonKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'nope', name: 'nope' }),
    });
    expect(await raw.json()).toEqual({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: expect.any(String),
    });
    expect((await service.storage.getBucket('nope')).error).toMatchObject({ status: 404 });
  });

  it('a bucket’s size and type limits apply to uploads on every route', async () => {
    await service.storage.createBucket('limited', {
      public: false,
      fileSizeLimit: 8,
      allowedMimeTypes: ['image/*'],
    });
    const bucket = service.storage.from('limited');
    expect((await bucket.upload('ok.png', text('12345678', 'image/png'))).error).toBeNull();
    expect((await bucket.upload('big.png', text('123456789', 'image/png'))).error).toMatchObject({ status: 413 });
    expect((await bucket.upload('doc.txt', text('1', 'text/plain'))).error).toMatchObject({ status: 415 });
    const plinth = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/limited/objects/doc.txt',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(plinth.statusCode).toBe(415);
    const rows = await t.deps.sql`select key from storage.objects where bucket = 'limited'`;
    expect(rows.map((r) => r.key)).toEqual(['ok.png']);
  });
});

describe('objects', () => {
  beforeAll(async () => {
    await service.storage.createBucket('files', { public: false });
    await service.storage.createBucket('open', { public: true });
  });

  it('uploads multipart (cacheControl) and raw bytes; x-upsert decides on a present key', async () => {
    const bucket = service.storage.from('files');
    const first = await bucket.upload('dir/one.txt', text('one'), { cacheControl: '60' });
    expect(first.data).toMatchObject({ path: 'dir/one.txt', fullPath: 'files/dir/one.txt' });
    const dup = await bucket.upload('dir/one.txt', text('uno'));
    expect(dup.error).toMatchObject({ status: 409, statusCode: '409' });
    const upsert = await bucket.upload('dir/one.txt', text('uno'), { upsert: true, cacheControl: '60' });
    expect(upsert.error).toBeNull();
    const raw = await bucket.upload('dir/raw.bin', Buffer.from([1, 2, 3]), { contentType: 'application/octet-stream' });
    expect(raw.error).toBeNull();
    const res = await fetch(`${url}/storage/v1/object/files/dir/one.txt`, {
      headers: { apikey: t.apiKey, authorization: `Bearer ${t.apiKey}` },
    });
    expect(res.headers.get('cache-control')).toBe('max-age=60');
    expect(await res.text()).toBe('uno');
    const bytes = await bucket.download('dir/raw.bin');
    expect(Buffer.from(await bytes.data!.arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
    expect((await bucket.update('dir/raw.bin', Buffer.from([4]))).error).toBeNull();
  });

  it('lists one folder level: folders with id null, names relative to the prefix, sort, search, paging', async () => {
    const bucket = service.storage.from('files');
    for (const key of ['list/b.txt', 'list/a.txt', 'list/sub/c.txt', 'list/sub/d.txt', 'list/Ab.txt']) {
      expect((await bucket.upload(key, text(key))).error).toBeNull();
    }
    const all = await bucket.list('list');
    // Folders and files sorted together by name, byte order (collation "C"), as Supabase's search.
    expect(all.data?.map((e) => [e.name, e.id === null])).toEqual([
      ['Ab.txt', false],
      ['a.txt', false],
      ['b.txt', false],
      ['sub', true],
    ]);
    const file = all.data!.find((e) => e.name === 'a.txt')!;
    expect(file.metadata).toMatchObject({ size: 10, mimetype: 'text/plain', cacheControl: 'max-age=3600' });
    const desc = await bucket.list('list/', { sortBy: { column: 'name', order: 'desc' }, limit: 2, offset: 1 });
    expect(desc.data?.map((e) => e.name)).toEqual(['b.txt', 'a.txt']);
    const search = await bucket.list('list', { search: 'a' });
    expect(search.data?.map((e) => e.name)).toEqual(['Ab.txt', 'a.txt']);
    const sub = await bucket.list('list/sub');
    expect(sub.data?.map((e) => e.name)).toEqual(['c.txt', 'd.txt']);
    const top = await bucket.list();
    expect(top.data?.map((e) => e.name)).toEqual(['dir', 'list']);
  });

  it('info and exists; a missing object is NoSuchKey 404', async () => {
    const bucket = service.storage.from('files');
    const info = await bucket.info('dir/one.txt');
    expect(info.data).toMatchObject({ name: 'dir/one.txt', bucketId: 'files', size: 3, contentType: 'text/plain' });
    expect((await bucket.exists('dir/one.txt')).data).toBe(true);
    expect((await bucket.exists('dir/none.txt')).data).toBe(false);
    const head = await fetch(`${url}/storage/v1/object/files/dir/one.txt`, {
      method: 'HEAD',
      headers: { apikey: t.apiKey, authorization: `Bearer ${t.apiKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"/);
    const headMissing = await fetch(`${url}/storage/v1/object/files/dir/none.txt`, {
      method: 'HEAD',
      headers: { apikey: t.apiKey, authorization: `Bearer ${t.apiKey}` },
    });
    expect(headMissing.status).toBe(404);
    const missing = await fetch(`${url}/storage/v1/object/files/dir/none.txt`, {
      headers: { apikey: t.apiKey, authorization: `Bearer ${t.apiKey}` },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: '404', code: 'NoSuchKey', error: 'not_found' });
  });

  it('move, copy and remove', async () => {
    const bucket = service.storage.from('files');
    await bucket.upload('mv/src.txt', text('move me'));
    expect((await bucket.move('mv/src.txt', 'mv/dst.txt')).data).toEqual({ message: 'Successfully moved' });
    expect((await bucket.exists('mv/src.txt')).data).toBe(false);
    const copied = await bucket.copy('mv/dst.txt', 'mv/copy.txt');
    expect(copied.data).toEqual({ path: 'files/mv/copy.txt' });
    expect(await (await bucket.download('mv/copy.txt')).data?.text()).toBe('move me');
    const removed = await bucket.remove(['mv/dst.txt', 'mv/copy.txt', 'mv/never.txt']);
    expect(removed.data?.map((o) => o.name).sort()).toEqual(['mv/copy.txt', 'mv/dst.txt']);
    expect((await bucket.list('mv')).data).toEqual([]);
  });

  it('public URLs serve public buckets without a credential, never private ones', async () => {
    await service.storage.from('open').upload('pic.txt', text('public!'));
    const publicUrl = service.storage.from('open').getPublicUrl('pic.txt').data.publicUrl;
    const res = await fetch(publicUrl);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('public!');
    const hidden = await fetch(service.storage.from('files').getPublicUrl('dir/one.txt').data.publicUrl);
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).not.toContain('uno');
  });
});

describe('signed URLs', () => {
  it('open one object without a credential until they expire (clock-driven)', async () => {
    const bucket = service.storage.from('files');
    await bucket.upload('signed/s.txt', text('secret'), { upsert: true });
    const signed = await bucket.createSignedUrl('signed/s.txt', 60);
    expect(signed.error).toBeNull();
    expect(signed.data?.signedUrl).toMatch(new RegExp(`^${url}/storage/v1/object/sign/files/signed/s.txt\\?token=`));
    expect(await (await fetch(signed.data!.signedUrl)).text()).toBe('secret');
    // The token opens only the object it names.
    const token = new URL(signed.data!.signedUrl).searchParams.get('token')!;
    const other = await fetch(`${url}/storage/v1/object/sign/files/dir/one.txt?token=${token}`);
    expect(other.status).toBe(401);
    const [expires, mac] = token.split('.');
    const stretched = await fetch(
      `${url}/storage/v1/object/sign/files/signed/s.txt?token=${Number(expires) + 3600}.${mac}`,
    );
    expect(stretched.status).toBe(401);
    t.clock.advance(61_000);
    const late = await fetch(signed.data!.signedUrl);
    expect(late.status).toBe(401);
    expect(await late.json()).toMatchObject({ statusCode: '401', code: 'InvalidJWT' });
  });

  it('batch signing answers each path, with an error for a missing one', async () => {
    const res = await service.storage.from('files').createSignedUrls(['signed/s.txt', 'signed/none.txt'], 60);
    expect(res.data).toEqual([
      expect.objectContaining({ path: 'signed/s.txt', error: null, signedUrl: expect.stringContaining('token=') }),
      expect.objectContaining({ path: 'signed/none.txt', error: expect.any(String), signedUrl: null }),
    ]);
    expect(await (await fetch(res.data![0]!.signedUrl!)).text()).toBe('secret');
  });

  it('a signed upload URL writes its one key, once per x-upsert, and in no other bucket', async () => {
    const signed = await service.storage.from('files').createSignedUploadUrl('up/via-token.txt');
    expect(signed.data?.path).toBe('up/via-token.txt');
    const up = await anon.storage.from('files').uploadToSignedUrl('up/via-token.txt', signed.data!.token, text('t'));
    expect(up.data).toEqual({ path: 'up/via-token.txt', fullPath: 'files/up/via-token.txt' });
    const again = await anon.storage
      .from('files')
      .uploadToSignedUrl('up/via-token.txt', signed.data!.token, text('t2'));
    expect(again.error).toMatchObject({ status: 409 });
    const elsewhere = await anon.storage
      .from('open')
      .uploadToSignedUrl('up/via-token.txt', signed.data!.token, text('x'));
    expect(elsewhere.error).toMatchObject({ status: 401 });
    expect((await service.storage.from('open').exists('up/via-token.txt')).data).toBe(false);
  });
});
