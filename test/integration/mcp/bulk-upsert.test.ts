// POST /api/database/advance/bulk-upsert as the MCP server's bulk-upsert tool sends it: multipart
// `file` (CSV or JSON, named by its local basename), `table` and `upsertKey`, over HTTP against
// a listening Plinth. Groups by column set, upserts on a key, one transaction, 400s that say why.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let base: string;

async function upload(file: { name: string; content: string } | undefined, fields: Record<string, string>) {
  const form = new FormData();
  if (file) form.append('file', new Blob([file.content]), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${base}/api/database/advance/bulk-upsert`, {
    method: 'POST',
    headers: { 'x-api-key': t.apiKey },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as any };
}
const rows = (table: string) => t.deps.sql.unsafe(`select * from public.${table} order by 1`);

beforeAll(async () => {
  t = await startTestApp({ env: { STORAGE_MAX_FILE_SIZE_BYTES: '2000' } });
  await t.deps.sql.unsafe(`
    create table public.people (
      email text primary key, name text, age int, active boolean default true, prefs jsonb, seen timestamptz
    )`);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

describe('bulk-upsert', () => {
  it('inserts CSV rows (BOM, quotes, CRLF, empty lines; empty values are NULL), values cast to the column types', async () => {
    const csv =
      '\uFEFFemail,name,age,active,prefs,seen\r\na@x.io,"Ann, the ""first""",31,true,"{""dark"":true}",2026-01-01T00:00:00Z\r\n\r\nb@x.io,Bob,,false,,\r\n';
    const res = await upload({ name: 'people.CSV', content: csv }, { table: 'people' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toEqual({
      success: true,
      message: 'Successfully inserted 2 rows into people',
      table: 'people',
      rowsAffected: 2,
      totalRecords: 2,
      filename: 'people.CSV',
    });
    expect(await rows('people')).toEqual([
      {
        email: 'a@x.io',
        name: 'Ann, the "first"',
        age: 31,
        active: true,
        prefs: { dark: true },
        seen: new Date('2026-01-01T00:00:00Z'),
      },
      { email: 'b@x.io', name: 'Bob', age: null, active: false, prefs: null, seen: null },
    ]);
  });

  it('upserts JSON records on a key, grouping records by their columns', async () => {
    const json = JSON.stringify([
      { email: 'a@x.io', age: 32 },
      { email: 'c@x.io', age: 40 },
      { email: 'd@x.io', name: 'Dee', prefs: { lang: 'fr' } },
    ]);
    const res = await upload({ name: 'more.json', content: json }, { table: 'people', upsertKey: 'email' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ rowsAffected: 3, totalRecords: 3 });
    const all = await rows('people');
    expect(all.map((r) => [r.email, r.name, r.age])).toEqual([
      ['a@x.io', 'Ann, the "first"', 32],
      ['b@x.io', 'Bob', null],
      ['c@x.io', null, 40],
      ['d@x.io', 'Dee', null],
    ]);
    expect(all[3]!.prefs).toEqual({ lang: 'fr' });
  });

  it('writes nothing when one row fails, and answers the database message', async () => {
    const json = JSON.stringify([
      { email: 'e@x.io', age: 1 },
      { email: 'f@x.io', age: 'old' },
    ]);
    const res = await upload({ name: 'bad.json', content: json }, { table: 'people' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/invalid input syntax for type integer/),
    });
    expect((await rows('people')).some((r) => r.email === 'e@x.io')).toBe(false);
  });

  it.each([
    ['no file', undefined, { table: 'people' }, 400, /File is required/],
    ['another extension', { name: 'rows.txt', content: 'a' }, { table: 'people' }, 400, /Unsupported file type/],
    ['broken JSON', { name: 'rows.json', content: '[{' }, { table: 'people' }, 400, /Failed to parse \.json file/],
    ['no records', { name: 'rows.csv', content: 'email\n' }, { table: 'people' }, 400, /No records found in file/],
    [
      'an upsert key the records lack',
      { name: 'r.json', content: '{"name":"x"}' },
      { table: 'people', upsertKey: 'email' },
      400,
      /Upsert key 'email' not found/,
    ],
    ['an unknown table', { name: 'r.json', content: '{"a":1}' }, { table: 'nope' }, 400, /does not exist/],
    ['an unknown column', { name: 'r.json', content: '{"zzz":1}' }, { table: 'people' }, 400, /column "zzz"/],
    [
      'a quote in the table name',
      { name: 'r.json', content: '{"a":1}' },
      { table: 'pe"ople' },
      400,
      /Invalid table name/,
    ],
    [
      'a file over the limit',
      { name: 'big.csv', content: `email\n${'x'.repeat(3000)}` },
      { table: 'people' },
      413,
      /File too large/,
    ],
  ])('%s → %i', async (_label, file, fields, status, message) => {
    const res = await upload(file, fields as Record<string, string>);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(res.json.message).toMatch(message);
    expect(res.json.nextActions).toEqual(expect.any(String));
  });
});
