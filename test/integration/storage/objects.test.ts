// Storage over the local-disk backend, through the REST API: buckets, uploads (raw and
// multipart), downloads with Range and ETag, listing, deletes, and hostile keys.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });

function multipart(field: string, filename: string, type: string, content: string | Buffer) {
  const boundary = `----plinth${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A request whose path goes over the socket exactly as written (no dot-segment resolution). */
async function rawRequest(method: string, rawPath: string, body: string): Promise<number> {
  const address = t.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: address.port,
        method,
        path: rawPath,
        headers: { ...admin(), 'content-type': 'text/plain' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-storage-'));
  t = await startTestApp({ env: { STORAGE_MAX_FILE_SIZE_BYTES: String(64 * 1024), STORAGE_DIR: dir } });
  for (const [name, isPublic] of [
    ['docs', false],
    ['pics', true],
  ] as const) {
    const res = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: name, isPublic },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

describe('buckets', () => {
  it('creates, lists, updates and deletes buckets', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'tmp-bucket' },
    });
    expect(created.json).toMatchObject({
      message: 'Bucket created successfully',
      bucketName: 'tmp-bucket',
      isPublic: true,
    });
    const again = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'tmp-bucket' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json.error).toBe('STORAGE_ALREADY_EXISTS');
    const list = await t.request({ method: 'GET', url: '/api/storage/buckets', headers: admin() });
    expect(list.json.map((b: { name: string }) => b.name)).toEqual(['docs', 'pics', 'tmp-bucket']);
    const patched = await t.request({
      method: 'PATCH',
      url: '/api/storage/buckets/tmp-bucket',
      headers: admin(),
      payload: { isPublic: false },
    });
    expect(patched.json).toMatchObject({ message: 'Bucket visibility updated', bucket: 'tmp-bucket', isPublic: false });
    await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/tmp-bucket/objects/a.txt',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'x',
    });
    const deleted = await t.request({ method: 'DELETE', url: '/api/storage/buckets/tmp-bucket', headers: admin() });
    expect(deleted.json.message).toBe('Bucket deleted successfully');
    const gone = await t.request({ method: 'DELETE', url: '/api/storage/buckets/tmp-bucket', headers: admin() });
    expect(gone.statusCode).toBe(404);
    expect(gone.json.error).toBe('STORAGE_NOT_FOUND');
  });

  it('rejects invalid bucket names', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'no spaces!' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('STORAGE_INVALID_PARAMETER');
  });
});

describe('upload and download', () => {
  it('uploads a raw body by key and downloads it with ETag, Range and If-None-Match', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: { ...admin(), 'content-type': 'text/plain; charset=utf-8' },
      payload: 'hello, storage',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json).toMatchObject({ bucket: 'docs', key: 'reports/2026/q1.txt', size: 14, mimeType: 'text/plain' });
    expect(put.json.url).toBe(`${t.config.apiBaseUrl}/api/storage/buckets/docs/objects/reports/2026/q1.txt`);

    const get = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: admin(),
    });
    expect(get.statusCode).toBe(200);
    expect(get.body).toBe('hello, storage');
    expect(get.headers['x-content-type-options']).toBe('nosniff');
    expect(get.headers['content-disposition']).toBeUndefined();
    const etag = get.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);

    const range = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: { ...admin(), range: 'bytes=7-13' },
    });
    expect(range.statusCode).toBe(206);
    expect(range.body).toBe('storage');
    expect(range.headers['content-range']).toBe('bytes 7-13/14');
    const suffix = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: { ...admin(), range: 'bytes=-3' },
    });
    expect(suffix.body).toBe('age');
    const outside = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: { ...admin(), range: 'bytes=50-' },
    });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */14');

    const cached = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/reports/2026/q1.txt',
      headers: { ...admin(), 'if-none-match': etag },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
  });

  it('uploads a multipart file, and JSON bodies stay bytes', async () => {
    const form = multipart('file', 'photo.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
    const put = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/pics/objects/me.png',
      headers: { ...admin(), ...form.headers },
      payload: form.payload,
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json).toMatchObject({ key: 'me.png', size: 8, mimeType: 'image/png' });
    const get = await t.request({ method: 'GET', url: '/api/storage/buckets/pics/objects/me.png' });
    expect(get.statusCode).toBe(200);
    expect(get.rawPayload).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
    expect(get.headers['content-type']).toBe('image/png');

    const json = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/data.json',
      headers: { ...admin(), 'content-type': 'application/json' },
      payload: '{"a": 1 }',
    });
    expect(json.statusCode).toBe(200);
    const back = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/data.json',
      headers: admin(),
    });
    expect(back.body).toBe('{"a": 1 }');
  });

  it('POST stores under a generated key (201)', async () => {
    const form = multipart('file', 'My Holiday Photo.JPG', 'image/jpeg', 'jpegbytes');
    const res = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/pics/objects',
      headers: { ...admin(), ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json.key).toMatch(/^My_Holiday_Photo-\d{13}-[0-9a-z]{6}\.JPG$/);
    const missing = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/nope/objects',
      headers: { ...admin(), ...form.headers },
      payload: form.payload,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('answers 400 without a file and 404 for an unknown bucket or key', async () => {
    const empty = await t.request({ method: 'PUT', url: '/api/storage/buckets/docs/objects/empty', headers: admin() });
    expect(empty.statusCode).toBe(400);
    const wrongField = multipart('document', 'a.txt', 'text/plain', 'x');
    const wrong = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/a',
      headers: { ...admin(), ...wrongField.headers },
      payload: wrongField.payload,
    });
    expect(wrong.statusCode).toBe(400);
    const noBucket = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/nope/objects/a',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(noBucket.statusCode).toBe(404);
    expect(noBucket.json.error).toBe('STORAGE_NOT_FOUND');
    const noKey = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/missing.txt',
      headers: admin(),
    });
    expect(noKey.statusCode).toBe(404);
    expect(noKey.json).toMatchObject({ error: 'OBJECT_NOT_FOUND', statusCode: 404 });
  });

  it('serves active content as an attachment with nosniff', async () => {
    for (const [key, type] of [
      ['x.html', 'text/html'],
      ['x.svg', 'image/svg+xml'],
      ['x.js', 'application/javascript'],
      ['x.xml', 'application/xml'],
    ]) {
      await t.request({
        method: 'PUT',
        url: `/api/storage/buckets/pics/objects/${key}`,
        headers: { ...admin(), 'content-type': type! },
        payload: '<script>alert(1)</script>',
      });
      const get = await t.request({ method: 'GET', url: `/api/storage/buckets/pics/objects/${key}` });
      expect(get.headers['content-disposition'], key).toMatch(/^attachment;/);
      expect(get.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('rejects oversize uploads with 413 and leaves no object and no staged file', async () => {
    const big = Buffer.alloc(64 * 1024 + 1, 1);
    const raw = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/big.bin',
      headers: { ...admin(), 'content-type': 'application/octet-stream' },
      payload: big,
    });
    expect(raw.statusCode).toBe(413);
    expect(raw.json.error).toBe('PAYLOAD_TOO_LARGE');
    const form = multipart('file', 'big.bin', 'application/octet-stream', big);
    const multi = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/big.bin',
      headers: { ...admin(), ...form.headers },
      payload: form.payload,
    });
    expect(multi.statusCode).toBe(413);
    const get = await t.request({ method: 'GET', url: '/api/storage/buckets/docs/objects/big.bin', headers: admin() });
    expect(get.statusCode).toBe(404);
    expect(await readdir(path.join(t.config.storage.dir, 'tmp'))).toEqual([]);
    const exact = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/exact.bin',
      headers: { ...admin(), 'content-type': 'application/octet-stream' },
      payload: big.subarray(1),
    });
    expect(exact.statusCode).toBe(200);
  });

  it.each([
    ['an encoded traversal', '..%2F..%2Fetc%2Fpasswd'],
    ['a leading slash', '%2Fetc%2Fpasswd'],
    ['an empty segment', 'a//b'],
    ['a backslash', 'a%5C..%5Cb'],
    ['a NUL byte', 'a%00b'],
    ['a newline', 'a%0Ab'],
    ['a key over 1024 bytes', 'k'.repeat(1025)],
  ])('rejects a key with %s (400)', async (_label, key) => {
    const put = await t.request({
      method: 'PUT',
      url: `/api/storage/buckets/docs/objects/${key}`,
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(put.statusCode, put.body).toBe(400);
    const get = await t.request({ method: 'GET', url: `/api/storage/buckets/docs/objects/${key}`, headers: admin() });
    expect(get.statusCode).toBe(400);
  });

  // inject() resolves dot segments like a browser would; a raw client sends them as they are.
  it.each(['a/../../b', '../etc/passwd', 'a/./b', 'a/%2e%2e/b', '..'])(
    'rejects %s sent verbatim over HTTP (400)',
    async (key) => {
      for (const method of ['PUT', 'GET'] as const) {
        const status = await rawRequest(method, `/api/storage/buckets/docs/objects/${key}`, 'x');
        expect(status, `${method} ${key}`).toBe(400);
      }
    },
  );

  it('keeps unusual but harmless keys byte for byte', async () => {
    const key = 'ünïcode/spaces and+plus/%percent/emoji-🎉.txt';
    const url = `/api/storage/buckets/docs/objects/${key.split('/').map(encodeURIComponent).join('/')}`;
    const put = await t.request({
      method: 'PUT',
      url,
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'ok',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json.key).toBe(key);
    expect((await t.request({ method: 'GET', url, headers: admin() })).body).toBe('ok');
  });

  it('concurrent replaces of one key leave exactly one complete version and no orphan blob', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => Buffer.alloc(16 * 1024, 65 + i));
    const results = await Promise.all(
      bodies.map((body) =>
        t.request({
          method: 'PUT',
          url: '/api/storage/buckets/docs/objects/race.bin',
          headers: { ...admin(), 'content-type': 'application/octet-stream' },
          payload: body,
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(bodies.map(() => 200));
    const get = await t.request({ method: 'GET', url: '/api/storage/buckets/docs/objects/race.bin', headers: admin() });
    expect(bodies.some((b) => b.equals(get.rawPayload))).toBe(true);
    const [row] = await t.deps.sql<
      { count: number }[]
    >`select count(*)::int as count from storage.objects where key = 'race.bin'`;
    expect(row?.count).toBe(1);
    const rows = await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.objects`;
    const files = (
      await Promise.all(
        (
          await readdir(path.join(t.config.storage.dir, 'blobs'))
        ).map((d) => readdir(path.join(t.config.storage.dir, 'blobs', d))),
      )
    ).flat();
    expect(files.sort()).toEqual(rows.map((r) => r.blob_id).sort());
  });
});

describe('crash recovery', () => {
  it('bytes whose row was never written are removed on a later start, an hour on', async () => {
    const write = async (age: string) => {
      const id = randomUUID();
      await t.deps
        .sql`insert into storage.pending_blobs (blob_id, created_at) values (${id}, now() - ${age}::interval)`;
      await t.deps.blobStore.stage(id, Readable.from([Buffer.from('orphaned bytes')]), 1024);
      await t.deps.blobStore.promote(id);
      return id;
    };
    const old = await write('2 hours');
    const fresh = await write('1 minute'); // maybe still being written by another server
    const other = await t.startAnotherServer();
    await other.close();
    expect(await t.deps.blobStore.read(old)).toBeNull();
    const kept = await t.deps.blobStore.read(fresh);
    expect(kept).not.toBeNull();
    kept!.destroy();
    const pending = await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.pending_blobs`;
    expect(pending.map((p) => p.blob_id)).toEqual([fresh]);
    await t.deps.sql`delete from storage.pending_blobs where blob_id = ${fresh}`;
    await t.deps.blobStore.remove(fresh);
  });

  it('uploads that finished or failed leave no pending note', async () => {
    await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/noted.txt',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'x',
    });
    await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/docs/objects/too-big.bin',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: Buffer.alloc(64 * 1024 + 1),
    });
    expect(await t.deps.sql`select * from storage.pending_blobs`).toHaveLength(0);
  });
});

describe('listing and deleting', () => {
  beforeAll(async () => {
    for (const key of ['list/a.txt', 'list/b.txt', 'list/sub/c.txt', 'other/d.txt']) {
      await t.request({
        method: 'PUT',
        url: `/api/storage/buckets/docs/objects/${key}`,
        headers: { ...admin(), 'content-type': 'text/plain' },
        payload: key,
      });
    }
  });

  it('lists by prefix and search with pagination', async () => {
    const page = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects?prefix=list/&limit=2',
      headers: admin(),
    });
    expect(page.json.data.map((f: { key: string }) => f.key)).toEqual(['list/a.txt', 'list/b.txt']);
    expect(page.json.pagination).toEqual({ offset: 0, limit: 2, total: 3 });
    const next = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects?prefix=list/&limit=2&offset=2',
      headers: admin(),
    });
    expect(next.json.data.map((f: { key: string }) => f.key)).toEqual(['list/sub/c.txt']);
    const search = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects?search=sub/',
      headers: admin(),
    });
    expect(search.json.data.map((f: { key: string }) => f.key)).toEqual(['list/sub/c.txt']);
    const wildcard = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects?prefix=%25',
      headers: admin(),
    });
    expect(wildcard.json.data).toEqual([]);
    const bad = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects?limit=5000',
      headers: admin(),
    });
    expect(bad.statusCode).toBe(400);
  });

  it('deletes one object ({message}) and answers 404 OBJECT_NOT_FOUND after', async () => {
    const res = await t.request({
      method: 'DELETE',
      url: '/api/storage/buckets/docs/objects/other/d.txt',
      headers: admin(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ message: 'Object deleted successfully' });
    const again = await t.request({
      method: 'DELETE',
      url: '/api/storage/buckets/docs/objects/other/d.txt',
      headers: admin(),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: 'OBJECT_NOT_FOUND', statusCode: 404, message: expect.any(String) });
  });

  it('deletes in batch with a result per key', async () => {
    const res = await t.request({
      method: 'DELETE',
      url: '/api/storage/buckets/docs/objects',
      headers: admin(),
      payload: { keys: ['list/a.txt', 'list/nothing.txt'] },
    });
    expect(res.json).toEqual({
      results: [
        { key: 'list/a.txt', status: 'deleted' },
        { key: 'list/nothing.txt', status: 'notFound' },
      ],
    });
  });

  it('upload strategy points at a direct PUT', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/docs/upload-strategy',
      headers: bearer(t.apiKey),
      payload: { filename: 'new/file.txt' },
    });
    expect(res.json).toEqual({
      method: 'direct',
      uploadUrl: `${t.config.apiBaseUrl}/api/storage/buckets/docs/objects/new/file.txt`,
      key: 'new/file.txt',
      confirmRequired: false,
    });
  });
});
