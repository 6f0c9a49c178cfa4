// The dashboard's record editor, /api/database/admin/tables/{table}/records: the records grammar
// as the admin, each successful write in the audit trail (GET /api/logs/audits) while writes
// through the plain records API are not; refused to users; and the catalog reads the Tables
// screen relies on: enum labels in a table's schema, and policies made and RLS switched through
// the admin SQL route, listed by GET /api/database/policies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let admin: Record<string, string>;
const TABLE = 'editor_notes';
const url = `/api/database/admin/tables/${TABLE}/records`;

beforeAll(async () => {
  t = await startTestApp({ env: { LOGS_FLUSH_INTERVAL_MS: '3600000' } });
  admin = bearer(await t.adminToken());
  const migrated = await t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: admin,
    payload: { version: '1', name: 'note-mood', sql: "create type public.note_mood as enum ('calm', 'busy', 'late')" },
  });
  expect(migrated.statusCode, migrated.body).toBe(201);
  const created = await t.request({
    method: 'POST',
    url: '/api/database/tables',
    headers: admin,
    payload: {
      tableName: TABLE,
      columns: [
        { columnName: 'title', type: 'string', isNullable: false },
        { columnName: 'mood', type: 'note_mood', isNullable: true },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
});
afterAll(() => t?.close());

async function auditsOf(action: string) {
  await t.app.logs!.flush();
  const res = await t.request({
    method: 'GET',
    url: `/api/logs/audits?module=DATABASE&action=${encodeURIComponent(action)}`,
    headers: admin,
  });
  expect([200, 206]).toContain(res.statusCode);
  return res.json as { action: string; actor: string; details: Record<string, unknown> }[];
}

describe('admin record editor', () => {
  it('inserts, updates and deletes rows as the admin, each write audited with its table and body', async () => {
    const inserted = await t.request({
      method: 'POST',
      url,
      headers: { ...admin, prefer: 'return=representation' },
      payload: { title: 'first', mood: 'calm' },
    });
    expect(inserted.statusCode, inserted.body).toBe(201);
    const [row] = inserted.json as { id: string; title: string; mood: string }[];
    expect(row).toMatchObject({ title: 'first', mood: 'calm' });

    const updated = await t.request({
      method: 'PATCH',
      url: `${url}?id=eq.${row!.id}`,
      headers: { ...admin, prefer: 'return=representation' },
      payload: { mood: 'late' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json).toMatchObject([{ id: row!.id, mood: 'late' }]);

    const read = await t.request({
      method: 'GET',
      url: `${url}?select=title,mood&order=title.asc`,
      headers: { ...admin, prefer: 'count=exact' },
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-range']).toBe('0-0/1');

    const deleted = await t.request({ method: 'DELETE', url: `${url}?id=eq.${row!.id}`, headers: admin });
    expect(deleted.statusCode).toBe(204);

    const route = '/api/database/admin/tables/:table/records';
    const audits = await auditsOf(`POST ${route}`);
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toMatchObject({ target: { table: TABLE }, body: { title: 'first', mood: 'calm' } });
    const [patch] = await auditsOf(`PATCH ${route}`);
    expect(patch?.details).toMatchObject({
      target: { table: TABLE },
      query: { id: `eq.${row!.id}` },
      body: { mood: 'late' },
    });
    const deletes = await auditsOf(`DELETE ${route}`);
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.details).toMatchObject({ query: { id: `eq.${row!.id}` } });
    // Reads are not audited.
    expect(await auditsOf(`GET ${route}`)).toHaveLength(0);
  });

  it('leaves writes through the plain records API out of the audit trail (why the editor has its own route)', async () => {
    const res = await t.request({
      method: 'POST',
      url: `/api/database/records/${TABLE}`,
      headers: admin,
      payload: { title: 'plain' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await auditsOf('POST /api/database/records/:table')).toHaveLength(0);
  });

  it('refuses users and the anon key with 403, and answers bad input with the records API’s 4xx', async () => {
    const user = await t.signUp();
    for (const headers of [bearer(user.accessToken), bearer(t.anonKey)]) {
      const res = await t.request({ method: 'POST', url, headers, payload: { title: 'nope' } });
      expect(res.statusCode).toBe(403);
    }
    const badEnum = await t.request({ method: 'POST', url, headers: admin, payload: { title: 'x', mood: 'sleepy' } });
    expect(badEnum.statusCode).toBe(400);
    const unknownColumn = await t.request({ method: 'GET', url: `${url}?nope=eq.1`, headers: admin });
    expect(unknownColumn.statusCode).toBe(400);
  });
});

describe('catalog reads of the Tables screen', () => {
  it('gives an enum column its labels in order, and null to other columns', async () => {
    const res = await t.request({ method: 'GET', url: `/api/database/tables/${TABLE}/schema`, headers: admin });
    expect(res.statusCode).toBe(200);
    const columns = Object.fromEntries(
      (res.json.columns as { columnName: string; enumValues: string[] | null }[]).map((c) => [c.columnName, c]),
    );
    expect(columns.mood).toMatchObject({ enumValues: ['calm', 'busy', 'late'] });
    expect(columns.title).toMatchObject({ enumValues: null });
  });

  it('switches RLS and creates a policy through the admin SQL route; the policy is listed', async () => {
    const run = (query: string) =>
      t.request({ method: 'POST', url: '/api/database/advance/rawsql', headers: admin, payload: { query } });
    const schema = async () =>
      (await t.request({ method: 'GET', url: `/api/database/tables/${TABLE}/schema`, headers: admin })).json;

    expect((await run(`alter table public."${TABLE}" disable row level security`)).statusCode).toBe(200);
    expect((await schema()).rlsEnabled).toBe(false);
    expect((await run(`alter table public."${TABLE}" enable row level security`)).statusCode).toBe(200);
    expect((await schema()).rlsEnabled).toBe(true);

    const created = await run(
      `create policy "notes readable" on public."${TABLE}" as permissive for select to authenticated using (true)`,
    );
    expect(created.statusCode, created.body).toBe(200);
    const policies = await t.request({ method: 'GET', url: '/api/database/policies', headers: admin });
    expect(policies.json.policies).toContainEqual(
      expect.objectContaining({
        tableName: TABLE,
        policyName: 'notes readable',
        command: 'SELECT',
        roles: ['authenticated'],
      }),
    );
  });
});
