// An attacker's archive: a real download with a record added (`copy … to program`), a byte of data
// changed, its signature stripped or made with another key, is refused at import. Imported anyway
// (allowUnsigned=true), its restore runs only what admin SQL would run: the program never runs, a
// COPY naming a table the catalog lacks (an injection through the name) is refused, a record
// PostgreSQL refuses is named with PostgreSQL's message; every failed restore leaves the database
// as it was. A genuine archive (with an oddly named table) still round-trips.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let storageDir: string;
let archive: Buffer;
const marker = path.join(tmpdir(), `plinth-restore-ran-${randomBytes(6).toString('hex')}`);

const asAdmin = (method: string, url: string) =>
  t.request({ method: method as 'POST', url, headers: { 'x-api-key': t.apiKey } });
const upload = (bytes: Buffer, query = '') =>
  t.request({
    method: 'POST',
    url: `/api/database/backups/import${query}`,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/gzip' },
    payload: bytes,
  });

/** What a client of the database would notice: the public tables and every row of them. */
async function snapshot() {
  const tables = await t.deps.sql<{ name: string }[]>`
    select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public' order by 1`;
  const rows: Record<string, unknown[]> = {};
  for (const { name } of tables) rows[name] = [...(await t.deps.sql.unsafe(`select * from ${name} order by 1`))];
  return rows;
}

const lines = () => gunzipSync(archive).toString('latin1').split('\n');
/** The archive's text with its signature (the last record) made again under `key`, or left out. */
function sealed(body: string[], key: Buffer | null): Buffer {
  const text = `${body.join('\n')}\n`;
  const end = key ? { end: true, mac: createHmac('sha256', key).update(text, 'latin1').digest('hex') } : { end: true };
  return gzipSync(Buffer.from(`${text}${JSON.stringify(end)}\n`, 'latin1'));
}
/** The archive's records but its end, with `record` added before the line `before`. */
function withRecord(record: object, before = '{"phase":"user-data"}'): string[] {
  const body = lines().slice(0, -2); // the end record and the empty string after its newline
  body.splice(body.indexOf(before), 0, JSON.stringify(record));
  return body;
}

async function importedUnsigned(bytes: Buffer): Promise<string> {
  const res = await upload(bytes, '?allowUnsigned=true');
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json).toMatchObject({ status: 'completed', signed: false });
  return res.json.id;
}

beforeAll(async () => {
  storageDir = await mkdtemp(path.join(tmpdir(), 'plinth-tamper-'));
  t = await startTestApp({ env: { STORAGE_DIR: storageDir } });
  await t.deps.sql.unsafe(`
    create table public.notes (id int primary key, body text not null);
    insert into public.notes values (1, 'packed'), (2, 'moved');
    create table public."odd""name's" (id int primary key, "it's" text);
    insert into public."odd""name's" values (7, 'quoted');
  `);
  const created = await asAdmin('POST', '/api/database/backups');
  expect(created.statusCode).toBe(201);
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      expect(json.backups.find((b: { id: string }) => b.id === created.json.id).status).toBe('completed');
    },
    { timeout: 20_000, interval: 50 },
  );
  expect(created.json.signed).toBe(true);
  archive = (await asAdmin('GET', `/api/database/backups/${created.json.id}/download`)).rawPayload;
  // Changed since the backup: a failed restore must leave exactly this.
  await t.deps.sql.unsafe(`insert into public.notes values (3, 'after the backup')`);
}, 120_000);
afterAll(() => t?.close());

const programRecord = { sql: `copy (select 1) to program 'touch ${marker}'` };

describe('import refuses an archive that is not signed by this project', () => {
  it.each([
    ['a copy … to program record added', () => sealed(withRecord(programRecord), null)],
    [
      'a copy … to program record added, signed with another key',
      () => sealed(withRecord(programRecord), randomBytes(32)),
    ],
    [
      'one byte of data changed, signature kept',
      () => gzipSync(Buffer.from(lines().join('\n').replace('\tpacked\n', '\tpecked\n'), 'latin1')),
    ],
    ['its signature left out', () => sealed(lines().slice(0, -2), null)],
  ])('%s: 400, nothing stored', async (_what, bytes) => {
    const before = (await asAdmin('GET', '/api/database/backups')).json;
    const res = await upload(bytes());
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      statusCode: 400,
      message: expect.stringMatching(/signature/),
      nextActions: expect.stringMatching(/allowUnsigned=true/),
    });
    expect((await asAdmin('GET', '/api/database/backups')).json).toEqual(before);
  });
});

describe('the restore of an archive imported with allowUnsigned=true is guarded', () => {
  it.each([
    ['copy … to program', programRecord, /COPY is not allowed/],
    [
      'copy … to program in a DO block',
      { sql: `do $$ begin execute 'copy (select 1) to program ''touch ${marker}'''; end $$` },
      /not allowed/i,
    ],
    ['a file read', { sql: `select pg_read_file('/etc/passwd')` }, /pg_read_file\(\) is not allowed/],
    ['alter system', { sql: `alter system set archive_command = 'touch ${marker}'` }, /ALTER SYSTEM is not allowed/],
    ['set role', { sql: 'set role postgres' }, /Changing role is not allowed/],
    [
      'an untrusted language',
      { sql: `create function public.f() returns int language plperlu as 'system("touch ${marker}")'` },
      /Language plperlu is not allowed/,
    ],
  ])('%s: 403 naming the record, the command not run, the database unchanged', async (_what, record, reason) => {
    const id = await importedUnsigned(sealed(withRecord(record), null));
    const before = await snapshot();
    const res = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403, nextActions: expect.any(String) });
    expect(res.json.message).toMatch(/record \d+ \(sql: /);
    expect(res.json.message).toMatch(reason);
    expect(existsSync(marker)).toBe(false);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [
      'an injection through the table name',
      { copy: `public.notes from program 'touch ${marker}' --`, columns: ['"id"'] },
    ],
    [
      'an injection through a column name',
      { copy: 'public.notes', columns: [`"id") from program 'touch ${marker}' --`] },
    ],
    ['a table the archive did not create', { copy: 'system.migrations', columns: ['name'] }],
  ])('a copy record with %s: 403 naming it, nothing run', async (_what, record) => {
    const body = withRecord(record, '{"phase":"user-post"}');
    body.splice(body.indexOf(JSON.stringify(record)) + 1, 0, '\\.');
    const id = await importedUnsigned(sealed(body, null));
    const before = await snapshot();
    const res = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json.message).toContain(`(copy into ${record.copy})`);
    expect(res.json.details).toMatchObject({ kind: 'copy', table: record.copy, record: expect.any(Number) });
    expect(existsSync(marker)).toBe(false);
    expect(await snapshot()).toEqual(before);
  });

  it("a header that names platform schemas as its own: the platform's policies survive the restore", async () => {
    const platformPolicies = () =>
      t.deps
        .sql`select schemaname, tablename, policyname from pg_policies where schemaname in ('storage', 'payments') order by 1, 2, 3`;
    const before = await platformPolicies();
    expect(before.length).toBeGreaterThan(0);
    const body = lines().slice(0, -2);
    const header = JSON.parse(body[1] as string);
    header.header.userSchemas.push('storage', 'payments');
    body[1] = JSON.stringify(header);
    const id = await importedUnsigned(sealed(body, null));
    const res = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await platformPolicies()).toEqual(before);
    await t.deps.sql.unsafe(`insert into public.notes values (3, 'after the backup')`);
  });

  it('a record PostgreSQL refuses: 409 naming it with PostgreSQL message, the database unchanged', async () => {
    const record = { sql: 'create table public.broken (id int references public.nowhere (id))' };
    const id = await importedUnsigned(sealed(withRecord(record), null));
    const before = await snapshot();
    const res = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json).toMatchObject({
      error: 'DATABASE_CONSTRAINT_VIOLATION',
      details: { kind: 'sql', record: expect.any(Number), sqlState: '42P01' },
      nextActions: expect.stringMatching(/Nothing was changed/),
    });
    expect(res.json.message).toMatch(
      /record \d+ \(sql: create table public\.broken .*\) failed: relation "public\.nowhere" does not exist/,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('rows PostgreSQL refuses: 409 naming the copy and its table, the database unchanged', async () => {
    const text = lines().join('\n').replace('1\tpacked\n', 'one\tpacked\n');
    const id = await importedUnsigned(gzipSync(Buffer.from(text, 'latin1')));
    const before = await snapshot();
    const res = await asAdmin('POST', `/api/database/backups/${id}/restore`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json.message).toMatch(/\(copy into public\.notes\) failed: invalid input syntax for type integer/);
    expect(await snapshot()).toEqual(before);
  });
});

describe('a genuine archive', () => {
  it('imports signed, and restores as made (the oddly named table too)', async () => {
    const res = await upload(archive);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json.signed).toBe(true);
    const restored = await asAdmin('POST', `/api/database/backups/${res.json.id}/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await snapshot()).toEqual({
      'public."odd""name\'s"': [{ id: 7, "it's": 'quoted' }],
      'public.notes': [
        { id: 1, body: 'packed' },
        { id: 2, body: 'moved' },
      ],
    });
    await t.deps.sql.unsafe(`insert into public.notes values (3, 'after the backup')`);
  });

  it('changed in the blob store after its import: the restore fails on its signature, the database unchanged', async () => {
    const res = await upload(archive);
    expect(res.statusCode, res.body).toBe(201);
    const [file] = (await readdir(storageDir, { recursive: true })).filter((f) => f.endsWith(res.json.id));
    const stored = path.join(storageDir, file as string);
    const text = gunzipSync(await readFile(stored))
      .toString('latin1')
      .replace('\tmoved\n', '\tmoxed\n');
    await writeFile(stored, gzipSync(Buffer.from(text, 'latin1')));
    const before = await snapshot();
    const restored = await asAdmin('POST', `/api/database/backups/${res.json.id}/restore`);
    expect(restored.statusCode, restored.body).toBe(409);
    expect(restored.json.message).toMatch(/signature does not match/);
    expect(await snapshot()).toEqual(before);
  });
});
