// Resumable uploads (tus 1.0) with the official tus client against both storage backends (local
// disk, and S3 through a real S3 server on loopback): an upload cut at half by killing its
// connection resumes from the server's offset and the object's bytes match; a second client on
// another server cannot write the same upload at the same time; an expired upload is gone; no
// other user can see, resume or terminate one; limits, quota, checksums and the Supabase path.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ListPartsProxy, startListPartsProxy } from '../../harness/s3-list-parts.js';
import { type S3Peer, startS3Peer } from '../../harness/s3-peer.js';
import { bearer, type Server, startTestApp, type TestApp } from '../../harness/test-app.js';

const PATH = '/api/storage/uploads/resumable';
const EXPIRY_SECONDS = 60;
const QUOTA = 64 * 1024 * 1024;
const MB = 1024 * 1024;

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const bytes = (size: number, seed: number) => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) b.writeUInt32LE((i * 2654435761 + seed) >>> 0, i);
  return b;
};
const meta = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');
const baseOf = (app: { server: http.Server }) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

/** A loopback relay that forwards the client's first `limit` bytes, then resets both sides. */
async function startCuttingRelay(targetPort: number, limit: number) {
  const sockets = new Set<Socket>();
  let forwarded = 0;
  let cut = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = limit - forwarded;
      if (chunk.length >= room) {
        cut = true;
        upstream.write(chunk.subarray(0, room), () => {
          upstream.resetAndDestroy();
          client.resetAndDestroy();
        });
        forwarded = limit;
        return;
      }
      forwarded += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs a tus-js-client upload to its end; the PATCH offsets it sent, and its URL. */
function tusUpload(data: Buffer, options: tus.UploadOptions): Promise<{ url: string; patchOffsets: number[] }> {
  const patchOffsets: number[] = [];
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      retryDelays: null,
      ...options,
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH') patchOffsets.push(Number(req.getHeader('Upload-Offset')));
      },
      onError: (err) => reject(Object.assign(err, { url: upload.url })),
      onSuccess: () => resolve({ url: upload.url!, patchOffsets }),
    });
    upload.start();
  });
}

for (const backend of ['local', 's3'] as const) {
  describe(`resumable uploads on ${backend} storage`, () => {
    let t: TestApp;
    let peer: S3Peer | undefined;
    let proxy: ListPartsProxy | undefined;
    let other: Server;
    let base: string;
    let otherBase: string;
    let storageDir: string;
    let db: postgres.Sql;
    let alice: string;
    let bob: string;
    const tusHeaders = (token: string) => ({ ...bearer(token), 'tus-resumable': '1.0.0' });

    /** Creates an upload of `length` bytes (no bytes sent); its absolute URL. */
    async function create(token: string, length: number, values: Record<string, string>, on = base) {
      const res = await fetch(`${on}${PATH}`, {
        method: 'POST',
        headers: { ...tusHeaders(token), 'upload-length': String(length), 'upload-metadata': meta(values) },
      });
      return { res, url: res.headers.get('location') ? `${on}${res.headers.get('location')}` : '' };
    }
    const patch = (url: string, token: string, offset: number, body: Buffer, extra: Record<string, string> = {}) =>
      fetch(url, {
        method: 'PATCH',
        headers: {
          ...tusHeaders(token),
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
          ...extra,
        },
        body: new Uint8Array(body),
      });
    const head = (url: string, token: string) => fetch(url, { method: 'HEAD', headers: tusHeaders(token) });
    const download = (key: string, token: string) =>
      t.request({ method: 'GET', url: `/api/storage/buckets/media/objects/${key}`, headers: bearer(token) });
    /** What the backend holds for upload `id` besides a finished blob: tus files, parts, info. */
    async function leftovers(id: string): Promise<string[]> {
      if (peer) return (await peer.keys()).filter((k) => k.includes(id));
      return (await readdir(path.join(storageDir, 'resumable'))).filter((n) => n.includes(id));
    }
    const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

    beforeAll(async () => {
      peer = backend === 's3' ? await startS3Peer() : undefined;
      proxy = peer && (await startListPartsProxy(peer));
      storageDir = await mkdtemp(path.join(tmpdir(), 'plinth-tus-'));
      t = await startTestApp({
        env: {
          ...(proxy?.env ?? {}),
          STORAGE_DIR: storageDir,
          STORAGE_RESUMABLE_EXPIRY_SECONDS: String(EXPIRY_SECONDS),
          STORAGE_QUOTA_BYTES: String(QUOTA),
        },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = baseOf(t.app);
      other = await t.startAnotherServer();
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      otherBase = baseOf(other.app);
      db = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
      for (const bucketName of ['media', 'images']) {
        await t.request({
          method: 'POST',
          url: '/api/storage/buckets',
          headers: { 'x-api-key': t.apiKey },
          payload: { bucketName, isPublic: false },
        });
      }
      await db`update storage.buckets set allowed_mime_types = '{image/*}', file_size_limit = ${2 * MB}
        where name = 'images'`;
      alice = (await t.signUp()).accessToken;
      bob = (await t.signUp()).accessToken;
    });
    afterAll(async () => {
      await db?.end();
      await other?.close();
      await t?.close();
      await proxy?.close();
      await peer?.close();
    });

    it('an upload cut at half by a killed connection resumes from the server offset, and the bytes match', async () => {
      const data = bytes(12 * MB, 1);
      const relay = await startCuttingRelay((t.app.server.address() as AddressInfo).port, 6 * MB);
      let url = '';
      try {
        await tusUpload(data, {
          endpoint: `http://127.0.0.1:${relay.port}${PATH}`,
          headers: bearer(alice),
          metadata: { bucketName: 'media', objectName: 'videos/cut.bin', contentType: 'video/mp4' },
        });
        expect.unreachable('the connection was killed');
      } catch (err) {
        url = `${base}${new URL((err as { url: string }).url).pathname}`;
      } finally {
        await relay.close();
      }
      // The server keeps what reached it before the cut (HEAD waits for that write to end).
      const offset = Number((await head(url, alice)).headers.get('upload-offset'));
      expect(offset).toBeGreaterThan(0);
      expect(offset).toBeLessThan(data.length);
      const resumed = await tusUpload(data, { uploadUrl: url, headers: bearer(alice) });
      expect(resumed.patchOffsets[0]).toBe(offset);
      const res = await download('videos/cut.bin', alice);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(md5(res.rawPayload)).toBe(md5(data));
      expect(res.headers.etag).toBe(`"${md5(data)}"`);
      // The upload ended with its object: its URL answers nothing any more, and nothing is left over.
      expect((await head(url, alice)).status).toBe(404);
      expect(await leftovers(idOf(url))).toEqual(peer ? [`blobs/${idOf(url)}`] : []);
    });

    it('an upload is invisible to every other caller: HEAD, PATCH, DELETE and the tus client get 404', async () => {
      const data = bytes(1 * MB, 2);
      const { res, url } = await create(alice, data.length, { bucketName: 'media', objectName: 'alice/doc.bin' });
      expect(res.status).toBe(201);
      expect(idOf(url)).toMatch(/^[0-9a-f-]{36}$/);
      expect((await patch(url, alice, 0, data.subarray(0, 1000))).status).toBe(204);
      for (const token of [bob, t.anonKey, t.apiKey]) {
        expect((await head(url, token)).status).toBe(404);
        expect((await patch(url, token, 1000, data.subarray(1000))).status).toBe(404);
        expect((await fetch(url, { method: 'DELETE', headers: tusHeaders(token) })).status).toBe(404);
      }
      expect((await head(url, alice)).status).toBe(200);
      await expect(tusUpload(data, { uploadUrl: url, headers: bearer(bob) })).rejects.toThrow(/404/);
      // A made-up id is the same 404.
      expect((await head(`${base}${PATH}/${crypto.randomUUID()}`, alice)).status).toBe(404);
      // The owner goes on from her offset and terminates; then it is gone for her too.
      expect(Number((await head(url, alice)).headers.get('upload-offset'))).toBe(1000);
      expect((await fetch(url, { method: 'DELETE', headers: tusHeaders(alice) })).status).toBe(204);
      expect((await head(url, alice)).status).toBe(404);
      expect(await leftovers(idOf(url))).toEqual([]);
    });

    it('two clients cannot write one upload: the second, on another server, waits for the lock and is refused at a stale offset', async () => {
      const data = bytes(2 * MB, 3);
      const { url } = await create(alice, data.length, { bucketName: 'media', objectName: 'race.bin' });
      const id = idOf(url);
      // Client A: a PATCH whose body stops at half, holding the upload's lock.
      const a = http.request(url, {
        method: 'PATCH',
        headers: {
          ...tusHeaders(alice),
          'upload-offset': '0',
          'content-type': 'application/offset+octet-stream',
          'content-length': String(data.length),
        },
      });
      // A's request ends when it lets go, with the offset it reached (or its connection closed).
      const aAnswer = new Promise<number>((resolve) => {
        a.on('response', (r) => resolve(Number(r.headers['upload-offset'] ?? -1)));
        a.on('error', () => resolve(-1));
      });
      a.write(data.subarray(0, data.length / 2));
      const storeId = peer ? `blobs/${id}` : id;
      const key = db`select ('x' || substr(md5(${`resumable-upload:${storeId}`}), 1, 16))::bit(64)::bigint as k`;
      const [{ k }] = (await key) as unknown as [{ k: string }];
      await vi.waitFor(
        async () => {
          const [row] = await db<{ taken: boolean }[]>`select pg_try_advisory_lock(${k}::bigint) as taken`;
          const taken = row!.taken;
          if (taken) await db`select pg_advisory_unlock(${k}::bigint)`;
          expect(taken).toBe(false);
        },
        { timeout: 10_000, interval: 20 },
      );
      // Client B on the other server, from offset 0 with all the bytes: the holder is asked to let
      // go, keeps what it wrote, and B's offset is then stale.
      const b = await patch(`${otherBase}${PATH}/${id}`, alice, 0, data);
      expect(b.status).toBe(409);
      expect((await b.json()).error).toBe('CONFLICT');
      expect(await aAnswer).toBeLessThanOrEqual(data.length / 2);
      a.destroy();
      const offset = Number((await head(url, alice)).headers.get('upload-offset'));
      expect(offset).toBeGreaterThan(0);
      expect(offset).toBeLessThanOrEqual(data.length / 2);
      // Whoever goes on from the server's offset completes it, with the right bytes.
      expect((await patch(url, alice, offset, data.subarray(offset))).status).toBe(204);
      expect(md5((await download('race.bin', alice)).rawPayload)).toBe(md5(data));
    });

    it('an expired upload is gone: 410 when touched (and removed), and the sweep removes untouched ones', async () => {
      const first = await create(alice, 4000, { bucketName: 'media', objectName: 'old-1.bin' });
      const second = await create(alice, 4000, { bucketName: 'media', objectName: 'old-2.bin' });
      const expires = new Date(String(first.res.headers.get('upload-expires')));
      expect(expires.getTime()).toBe(Math.floor(t.clock.now().getTime() / 1000) * 1000 + EXPIRY_SECONDS * 1000);
      for (const { url } of [first, second]) expect((await patch(url, alice, 0, bytes(1000, 4))).status).toBe(204);
      t.clock.advance((EXPIRY_SECONDS + 1) * 1000);
      const touched = await head(first.url, alice);
      expect(touched.status).toBe(410);
      expect((await patch(first.url, alice, 1000, bytes(3000, 5))).status).toBe(404);
      expect(await leftovers(idOf(first.url))).toEqual([]);
      // The sweep runs when a server starts (and every few minutes).
      const third = await t.startAnotherServer();
      await third.close();
      expect((await head(second.url, alice)).status).toBe(404);
      expect(await leftovers(idOf(second.url))).toEqual([]);
      const rows = await db`select 1 from storage.resumable_uploads where key like 'old-%'`;
      expect(rows.length).toBe(0);
    });

    it('creation applies the bucket limits, row-level security and the quota, which counts uploads in progress', async () => {
      const image = { bucketName: 'images', objectName: 'a.png', contentType: 'image/png' };
      expect((await create(alice, 1000, { ...image, contentType: 'text/html' })).res.status).toBe(415);
      const big = await create(alice, 3 * MB, image);
      expect(big.res.status).toBe(413);
      expect((await big.res.json()).error).toBe('PAYLOAD_TOO_LARGE');
      expect((await create(alice, 1000, { ...image, bucketName: 'nope' })).res.status).toBe(404);
      expect((await create(alice, 1000, { ...image, objectName: '../x' })).res.status).toBe(400);
      expect((await create(alice, 1000, { bucketName: 'images' })).res.status).toBe(400);
      // The anon key has no insert policy on storage.objects.
      const anon = await create(t.anonKey, 1000, image);
      expect(anon.res.status).toBe(403);
      expect((await anon.res.json()).error).toBe('STORAGE_PERMISSION_DENIED');
      // Deferred length is refused: limits and quota need the length up front.
      const deferred = await fetch(`${base}${PATH}`, {
        method: 'POST',
        headers: { ...tusHeaders(alice), 'upload-defer-length': '1', 'upload-metadata': meta(image) },
      });
      expect(deferred.status).toBe(400);
      // Two uploads that fit the quota only one at a time: the second is refused with no byte sent.
      const used = await db<{ used: string }[]>`select storage.used_bytes(${t.clock.now()})::text as used`;
      const room = QUOTA - Number(used[0]!.used);
      const one = await create(alice, Math.floor(room * 0.6), { bucketName: 'media', objectName: 'q1.bin' });
      expect(one.res.status, `${room} ${await one.res.clone().text()}`).toBe(201);
      const two = await create(alice, Math.floor(room * 0.6), { bucketName: 'media', objectName: 'q2.bin' });
      expect(two.res.status, await two.res.clone().text()).toBe(413);
      expect((await two.res.json()).error).toBe('STORAGE_INSUFFICIENT_QUOTA');
      // A plain upload does not fit beside the reserved one either.
      const plain = await t.request({
        method: 'PUT',
        url: '/api/storage/buckets/media/objects/plain.bin',
        headers: { ...bearer(alice), 'content-type': 'application/octet-stream' },
        payload: Buffer.alloc(Math.floor(room * 0.5)),
      });
      expect(plain.statusCode).toBe(413);
      expect(plain.json.error).toBe('STORAGE_INSUFFICIENT_QUOTA');
      expect((await fetch(one.url, { method: 'DELETE', headers: tusHeaders(alice) })).status).toBe(204);
      expect(
        (await create(alice, Math.floor(room * 0.6), { bucketName: 'media', objectName: 'q2.bin' })).res.status,
      ).toBe(201);
    });

    it('is authorized again at completion: a bucket that stopped allowing the type refuses, and nothing stays', async () => {
      await db`update storage.buckets set allowed_mime_types = null where name = 'images'`;
      const data = bytes(5000, 6);
      const { url } = await create(alice, data.length, {
        bucketName: 'images',
        objectName: 'late.png',
        contentType: 'image/png',
      });
      await db`update storage.buckets set allowed_mime_types = '{image/jpeg}' where name = 'images'`;
      const res = await patch(url, alice, 0, data);
      expect(res.status).toBe(415);
      expect((await head(url, alice)).status).toBe(404);
      expect(await leftovers(idOf(url))).toEqual([]);
      await db`update storage.buckets set allowed_mime_types = '{image/*}' where name = 'images'`;
    });

    it('checksum extension: a matching Upload-Checksum is written, a mismatch is 460 and moves nothing', async () => {
      const options = await fetch(`${base}${PATH}`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('tus-extension')).toBe(
        'creation,creation-with-upload,termination,expiration,checksum',
      );
      expect(options.headers.get('tus-checksum-algorithm')).toContain('sha1');
      const data = bytes(3000, 7);
      const { url } = await create(alice, data.length, { bucketName: 'media', objectName: 'sum.bin' });
      const sha1 = (b: Buffer) => `sha1 ${createHash('sha1').update(b).digest('base64')}`;
      const bad = await patch(url, alice, 0, data.subarray(0, 1000), {
        'upload-checksum': sha1(data.subarray(1, 1001)),
      });
      expect(bad.status).toBe(460);
      expect((await bad.json()).error).toBe('STORAGE_CHECKSUM_MISMATCH');
      expect((await head(url, alice)).headers.get('upload-offset')).toBe('0');
      expect((await patch(url, alice, 0, data.subarray(0, 10), { 'upload-checksum': 'crc99 AAAA' })).status).toBe(400);
      const good = await patch(url, alice, 0, data.subarray(0, 1000), {
        'upload-checksum': sha1(data.subarray(0, 1000)),
      });
      expect(good.status).toBe(204);
      expect(good.headers.get('upload-offset')).toBe('1000');
      // Bob cannot stage bytes on Alice's upload either.
      expect(
        (await patch(url, bob, 1000, data.subarray(1000), { 'upload-checksum': sha1(data.subarray(1000)) })).status,
      ).toBe(404);
      expect((await patch(url, alice, 1000, data.subarray(1000))).status).toBe(204);
      expect(md5((await download('sum.bin', alice)).rawPayload)).toBe(md5(data));
    });

    it("Supabase's /storage/v1/upload/resumable: creation-with-upload, x-upsert, storage-api errors", async () => {
      const supa = (token: string) => ({ ...tusHeaders(token), apikey: t.anonKey });
      const data = bytes(4000, 8);
      const values = {
        bucketName: 'media',
        objectName: 'supa/clip.bin',
        contentType: 'video/webm',
        cacheControl: '60',
      };
      const res = await fetch(`${base}/storage/v1/upload/resumable`, {
        method: 'POST',
        headers: {
          ...supa(alice),
          'upload-length': String(data.length),
          'upload-metadata': meta(values),
          'content-type': 'application/offset+octet-stream',
        },
        body: new Uint8Array(data),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('upload-offset')).toBe(String(data.length));
      expect(res.headers.get('location')).toMatch(/^\/storage\/v1\/upload\/resumable\/[0-9a-f-]{36}$/);
      const got = await t.request({
        method: 'GET',
        url: '/storage/v1/object/authenticated/media/supa/clip.bin',
        headers: { ...bearer(alice), apikey: t.anonKey },
      });
      expect(got.statusCode).toBe(200);
      expect(got.headers['cache-control']).toBe('max-age=60');
      expect(md5(got.rawPayload)).toBe(md5(data));
      // Without x-upsert an existing name is storage-api's 409 Duplicate; with it, replaced.
      const again = await tusUpload(data, {
        endpoint: `${base}/storage/v1/upload/resumable`,
        headers: supa(alice),
        metadata: values,
      }).catch((err: Error) => err);
      expect(String(again)).toMatch(/409/);
      expect(String(again)).toMatch(/Duplicate/);
      const replaced = bytes(3000, 9);
      await tusUpload(replaced, {
        endpoint: `${base}/storage/v1/upload/resumable`,
        headers: { ...supa(alice), 'x-upsert': 'true' },
        metadata: values,
      });
      expect(md5((await download('supa/clip.bin', alice)).rawPayload)).toBe(md5(replaced));
    });
  });
}
