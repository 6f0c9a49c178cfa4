// Moving a project to another server: on server A a table with rows and a row-level policy, a
// signed-up user and a stored file are backed up and the archive downloaded; on server B (its own
// fresh database and blob store) the archive is uploaded, listed, downloaded again and restored,
// and B then answers like A did: same rows, the user signs in with their password, the file has
// its bytes, the policy still decides. A truncated, damaged, foreign or other-version archive is
// refused with nothing stored.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let a: TestApp;
let b: TestApp;
let bDir: string;
let archive: Buffer;
const password = 'moving-house-42';
const email = `mover-${randomBytes(4).toString('hex')}@example.com`;
const fileBytes = randomBytes(70_000);
let rowsOnA: unknown[];

const asAdmin = (t: TestApp, method: string, url: string, extra: Record<string, unknown> = {}) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, ...extra });
const upload = (t: TestApp, bytes: Buffer, query = '') =>
  t.request({
    method: 'POST',
    url: `/api/database/backups/import${query}`,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/gzip' },
    payload: bytes,
  });
const signIn = (t: TestApp) =>
  t.request({ method: 'POST', url: '/api/auth/sessions?client_type=mobile', payload: { email, password } });
const readNotes = (t: TestApp, token: string) =>
  t.request({ method: 'GET', url: '/api/database/records/notes?order=id', headers: bearer(token) });

/** The backup archives in a server's blob store (staged or stored). */
async function archivesIn(dir: string): Promise<string[]> {
  const files = await readdir(dir, { recursive: true });
  return files.filter((f) => path.basename(f).startsWith('database-backup-')).sort();
}

async function completedBackup(t: TestApp): Promise<string> {
  const created = await asAdmin(t, 'POST', '/api/database/backups', { payload: {} });
  expect(created.statusCode).toBe(201);
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin(t, 'GET', '/api/database/backups');
      expect(json.backups.find((x: { id: string }) => x.id === created.json.id).status).toBe('completed');
    },
    { timeout: 20_000, interval: 50 },
  );
  return created.json.id;
}

beforeAll(async () => {
  bDir = await mkdtemp(path.join(tmpdir(), 'plinth-b-'));
  [a, b] = await Promise.all([
    startTestApp({ env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-a-')) } }),
    startTestApp({ env: { STORAGE_DIR: bDir } }),
  ]);
  await a.deps.sql.unsafe(`
    create table public.notes (
      id bigint generated always as identity primary key,
      owner uuid not null default auth.uid() references auth.users (id) on delete cascade,
      body text not null
    );
    create policy owner_all on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
  `);
  const user = await a.signUp(email, password);
  const inserted = await a.request({
    method: 'POST',
    url: '/api/database/records/notes',
    headers: bearer(user.accessToken),
    payload: [{ body: 'packed' }, { body: 'moved' }],
  });
  expect(inserted.statusCode).toBe(201);
  rowsOnA = (await readNotes(a, user.accessToken)).json;
  expect(rowsOnA).toHaveLength(2);
  expect((await asAdmin(a, 'POST', '/api/storage/buckets', { payload: { bucketName: 'docs' } })).statusCode).toBe(201);
  const stored = await a.request({
    method: 'PUT',
    url: '/api/storage/buckets/docs/objects/mover/photo.bin',
    headers: { ...bearer(user.accessToken), 'content-type': 'application/octet-stream' },
    payload: fileBytes,
  });
  expect(stored.statusCode).toBe(200);

  const id = await completedBackup(a);
  const download = await asAdmin(a, 'GET', `/api/database/backups/${id}/download`);
  expect(download.statusCode).toBe(200);
  archive = download.rawPayload;
}, 120_000);
afterAll(() => Promise.all([a?.close(), b?.close()]));

describe('an archive from server A restores on server B', () => {
  let importedId: string;

  it('uploads as a completed backup that lists and downloads byte for byte', async () => {
    const res = await upload(b, archive, '?name=from-a');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toMatchObject({
      name: 'from-a',
      status: 'completed',
      triggerSource: 'manual',
      sizeBytes: archive.length,
      createdBy: 'api-key',
      importedAt: b.clock.now().toISOString(),
    });
    importedId = res.json.id;
    const { json } = await asAdmin(b, 'GET', '/api/database/backups');
    expect(json.backups).toEqual([res.json]);
    const again = await asAdmin(b, 'GET', `/api/database/backups/${importedId}/download`);
    expect(again.rawPayload.equals(archive)).toBe(true);

    const sameName = await upload(b, archive, '?name=from-a');
    expect(sameName.statusCode).toBe(409);
    expect(sameName.json).toMatchObject({ error: 'DATABASE_DUPLICATE', nextActions: expect.any(String) });
  });

  it('restores: the rows, the user and password, the file bytes and the policy are back', async () => {
    expect((await signIn(b)).statusCode).toBe(401);
    const restored = await asAdmin(b, 'POST', `/api/database/backups/${importedId}/restore`);
    expect(restored.statusCode, restored.body).toBe(200);

    const session = await signIn(b);
    expect(session.statusCode).toBe(200);
    const token = session.json.accessToken;
    const notes = await readNotes(b, token);
    expect(notes.statusCode).toBe(200);
    expect(notes.json).toEqual(rowsOnA);

    const file = await b.request({
      method: 'GET',
      url: '/api/storage/buckets/docs/objects/mover/photo.bin',
      headers: bearer(token),
    });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(fileBytes)).toBe(true);

    // The policy decides on B too: another user sees none of the mover's rows, nor can add one as them.
    const stranger = await b.signUp();
    expect((await readNotes(b, stranger.accessToken)).json).toEqual([]);
    const forged = await b.request({
      method: 'POST',
      url: '/api/database/records/notes',
      headers: bearer(stranger.accessToken),
      payload: [{ body: 'not mine', owner: session.json.user.id }],
    });
    expect(forged.statusCode).toBe(403);
  });
});

describe('refused archives leave nothing behind', () => {
  const lines = () => gunzipSync(archive).toString('latin1').split('\n');
  const regzip = (text: string) => gzipSync(Buffer.from(text, 'latin1'));
  const otherVersion = () => {
    const all = lines();
    const header = JSON.parse(all[1] as string);
    header.header.platformMigrations.push('29991231000000_from_the_future.sql');
    return regzip([all[0], JSON.stringify(header), ...all.slice(2)].join('\n'));
  };

  it.each([
    ['a truncated download', () => archive.subarray(0, Math.floor(archive.length * 0.6)), 400],
    ['a random file', () => randomBytes(50_000), 400],
    ['a gzip of something else', () => gzipSync('hello, not a backup\n'), 400],
    ['an empty body', () => Buffer.alloc(0), 400],
    ['an archive without its end record', () => regzip(`${lines().slice(0, -2).join('\n')}\n`), 400],
    ['an archive with a damaged record', () => regzip(lines().join('\n').replace('{"copy":', '{"copy"')), 400],
    ['an archive with bytes after its end', () => regzip(`${lines().join('\n')}{"sql":"select 1"}\n`), 400],
    ['an archive made with other platform migrations', otherVersion, 409],
  ])('%s', async (_what, bytes, status) => {
    const before = (await asAdmin(b, 'GET', '/api/database/backups')).json;
    const files = await archivesIn(bDir);
    const res = await upload(b, bytes());
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json).toMatchObject({
      error: status === 400 ? 'VALIDATION_ERROR' : 'DATABASE_CONSTRAINT_VIOLATION',
      statusCode: status,
      nextActions: expect.any(String),
    });
    expect((await asAdmin(b, 'GET', '/api/database/backups')).json).toEqual(before);
    expect(await archivesIn(bDir)).toEqual(files);
  });
});

/** B listening on a loopback port (once). */
async function portOfB(): Promise<number> {
  if (!b.app.server.listening) await b.app.listen({ host: '127.0.0.1', port: 0 });
  return (b.app.server.address() as AddressInfo).port;
}

describe('uploads over a real connection', () => {
  it('refused while the body still streams: the rest is read, and the connection answers the next request', async () => {
    const files = await archivesIn(bDir);
    const body = randomBytes(3 * 1024 * 1024);
    const socket = connect({ host: '127.0.0.1', port: await portOfB() });
    let answers = '';
    socket.on('data', (d) => (answers += d.toString('latin1')));
    socket.write(
      `POST /api/database/backups/import HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${b.apiKey}\r\n` +
        `content-type: application/gzip\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body);
    await vi.waitFor(() => expect(answers).toMatch(/^HTTP\/1\.1 400 [\s\S]*\r\n\r\n\{[\s\S]*\}$/), { timeout: 10_000 });
    expect(answers).toContain('not a complete Plinth backup archive');
    // Left unread, the refused body held the connection (and the server's close) until the request
    // timeout; read and dropped, the same connection answers the next request.
    socket.write('GET /api/health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await vi.waitFor(() => expect(answers.match(/HTTP\/1\.1 /g)).toHaveLength(2), { timeout: 10_000 });
    expect(answers.slice(answers.lastIndexOf('HTTP/1.1 '))).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
    expect(await archivesIn(bDir)).toEqual(files);
  });

  it('cut off by the client: leaves no staged file and no backup', async () => {
    const before = (await asAdmin(b, 'GET', '/api/database/backups')).json;
    const files = await archivesIn(bDir);
    const port = await portOfB();
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/database/backups/import',
      headers: { 'x-api-key': b.apiKey, 'content-type': 'application/gzip', 'content-length': archive.length },
    });
    req.on('error', () => {});
    req.write(archive.subarray(0, archive.length >> 1));
    // The first half is being staged; then the client goes away.
    await vi.waitFor(async () => expect((await archivesIn(bDir)).length).toBe(files.length + 1), { timeout: 10_000 });
    req.destroy();
    await vi.waitFor(async () => expect(await archivesIn(bDir)).toEqual(files), { timeout: 10_000 });
    expect((await asAdmin(b, 'GET', '/api/database/backups')).json).toEqual(before);
  });
});
