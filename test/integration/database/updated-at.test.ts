// Tables created through the table admin API keep `updated_at` current: an update through the
// records API moves it (and only it: created_at stays); rows untouched keep theirs; a table whose
// updated_at was dropped still updates.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const key = () => ({ 'x-api-key': t.apiKey });
const OLD = '2020-01-01T00:00:00+00:00';

beforeAll(async () => {
  t = await startTestApp();
  const created = await t.request({
    method: 'POST',
    url: '/api/database/tables',
    headers: key(),
    payload: {
      tableName: 'notes',
      columns: [{ columnName: 'body', type: 'string', isNullable: false, isUnique: false }],
    },
  });
  expect(created.statusCode).toBe(201);
});
afterAll(() => t.close());

const records = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) =>
  t.request({
    method,
    url: `/api/database/records/${path}`,
    headers: { ...key(), prefer: 'return=representation' },
    payload: payload as never,
  });

it('a PATCH through the records API moves updated_at; created_at and other rows stay', async () => {
  const inserted = await records('POST', 'notes', [{ body: 'a' }, { body: 'b' }]);
  expect(inserted.statusCode).toBe(201);
  // Both rows as if written long ago (a direct write here is itself an update: set both columns).
  await t.deps.sql`update public.notes set created_at = ${OLD}, updated_at = ${OLD}`;
  const before = await records('GET', 'notes?select=body,created_at,updated_at&order=body');
  expect(before.json).toEqual([
    { body: 'a', created_at: OLD, updated_at: expect.any(String) },
    { body: 'b', created_at: OLD, updated_at: expect.any(String) },
  ]);
  // The trigger also fired for that direct update: updated_at is now(), not the value set.
  expect(before.json[0].updated_at).not.toBe(OLD);
  await t.deps.sql.unsafe(`alter table public.notes disable trigger touch_updated_at`);
  await t.deps.sql`update public.notes set updated_at = ${OLD}`;
  await t.deps.sql.unsafe(`alter table public.notes enable trigger touch_updated_at`);

  const patched = await records('PATCH', 'notes?body=eq.a', { body: 'a2' });
  expect(patched.statusCode).toBe(200);
  const [row] = patched.json as { body: string; created_at: string; updated_at: string }[];
  expect(row!.body).toBe('a2');
  expect(row!.created_at).toBe(OLD);
  expect(Date.parse(row!.updated_at)).toBeGreaterThan(Date.parse(OLD));
  const [{ now }] = await t.deps.sql<[{ now: Date }]>`select now()`;
  expect(Math.abs(Date.parse(row!.updated_at) - now.getTime())).toBeLessThan(60_000);

  const other = await records('GET', 'notes?select=updated_at&body=eq.b');
  expect(other.json).toEqual([{ updated_at: OLD }]);
});

it('a table whose updated_at was dropped still takes updates', async () => {
  const dropped = await t.request({
    method: 'PATCH',
    url: '/api/database/tables/notes/schema',
    headers: key(),
    payload: { dropColumns: ['updated_at'] },
  });
  expect(dropped.statusCode).toBe(200);
  const patched = await records('PATCH', 'notes?body=eq.b', { body: 'b2' });
  expect(patched.statusCode).toBe(200);
  expect(patched.json).toEqual([expect.objectContaining({ body: 'b2', created_at: OLD })]);
});
