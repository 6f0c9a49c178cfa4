// A restore chosen by PostgreSQL to end a deadlock is rolled back whole and runs again from the
// archive's start: the client gets its 200 and the backup's data. The deadlock is made on purpose:
// a transaction holds a platform table the restore empties, and once the restore waits for it,
// asks for a table the restore has already dropped. Whichever session runs PostgreSQL's deadlock
// check (once, deadlock_timeout after it began to wait) and finds the cycle is ended. So the
// server's sessions check after 5 s and the other transaction's after 60 s: the restore, waiting
// first, finds the cycle however slow the machine is between its wait and the other's.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createDatabase, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const asAdmin = (method: string, url: string) =>
  t.request({ method: method as 'POST', url, headers: { 'x-api-key': t.apiKey } });

beforeAll(async () => {
  const databaseUrl = await createDatabase();
  const owner = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await owner.unsafe(`do $$ begin
      execute format('alter database %I set deadlock_timeout = %L', current_database(), '5s');
    end $$`);
  } finally {
    await owner.end();
  }
  t = await startTestApp({ databaseUrl });
});
afterAll(() => t?.close());

it('runs a restore again when PostgreSQL ended it to break a deadlock', async () => {
  await t.deps.sql.unsafe(`create table public.notes (id int primary key, body text not null);
    insert into public.notes values (1, 'kept');`);
  const created = await asAdmin('POST', '/api/database/backups');
  expect(created.statusCode, created.body).toBe(201);
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      expect(json.backups.find((b: { id: string }) => b.id === created.json.id)?.status).toBe('completed');
    },
    { timeout: 20_000, interval: 20 },
  );
  await t.deps.sql`insert into public.notes values (2, 'after the backup')`;

  const other = await t.deps.sql.reserve();
  try {
    await other`begin`;
    await other`set local deadlock_timeout = '60s'`;
    await other`select from auth.users limit 0`;
    const restore = asAdmin('POST', `/api/database/backups/${created.json.id}/restore`);
    // The restore has dropped public.notes and now waits for auth.users, which `other` holds.
    await vi.waitFor(
      async () => {
        const [row] = await t.deps.sql<{ waiting: boolean }[]>`
          select exists (select from pg_locks where relation = 'auth.users'::regclass and not granted) as waiting`;
        expect(row?.waiting).toBe(true);
      },
      { timeout: 20_000, interval: 10 },
    );
    // Waits for public.notes, which the restore holds: a deadlock, and the restore is its victim.
    await other`select from public.notes limit 0`;
    await other`commit`;
    const restored = await restore;
    expect(restored.statusCode, restored.body).toBe(200);
  } finally {
    other.release();
  }
  expect(await t.deps.sql`select id, body from public.notes order by id`).toEqual([{ id: 1, body: 'kept' }]);
});
