// A backup whose row already says completed, while its job still lets go of its lock and
// connection (the database's replies slowed by a loopback relay widen that moment): a client
// that saw it completed can restore it, start the next backup or delete it at once. Before, each
// answered 409 "another backup is running" (CI, under load).
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createBackupsService } from '../../../src/modules/backups/backups.service.js';
import { type DatabaseRelay, startDatabaseRelay } from '../../harness/tcp-relay.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const REPLY_DELAY_MS = 25;
let t: TestApp;
let relay: DatabaseRelay;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(
    'create table public.notes (id int primary key, body text); insert into public.notes values (1, $$kept$$)',
  );
  relay = await startDatabaseRelay(t.databaseUrl);
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await t?.close();
});

/** Resolves as soon as the row of `id` says completed, read past the relay. */
const seenCompleted = (id: string) =>
  vi.waitFor(
    async () => {
      const [row] = await t.deps.sql<{ status: string }[]>`select status from system.database_backups where id = ${id}`;
      expect(row?.status).toBe('completed');
    },
    { timeout: 30_000, interval: 2 },
  );

it('restores, starts the next one and deletes the moment the row says completed', async () => {
  const pool = postgres(relay.databaseUrl, { max: 4, onnotice: () => {} });
  const service = createBackupsService(
    { ...t.deps, sql: pool },
    async () => {},
    (err) => {
      throw err;
    },
  );
  try {
    const first = await service.create(undefined, null);
    await vi.waitFor(
      async () => {
        const [row] = await t.deps.sql<
          { status: string }[]
        >`select status from system.database_backups where id = ${first.id}`;
        expect(row?.status).toBe('running');
      },
      { timeout: 10_000, interval: 2 },
    );
    // From here every reply reaches the service late: the job learns of its completion, and has
    // its lock released, only after a client could have seen the row completed.
    relay.delayReplies(REPLY_DELAY_MS);
    await seenCompleted(first.id);
    relay.delayReplies(0);
    await expect(service.restore(first.id)).resolves.toEqual({ message: 'Database restored successfully' });

    const second = await service.create(undefined, null);
    relay.delayReplies(REPLY_DELAY_MS);
    await seenCompleted(second.id);
    relay.delayReplies(0);
    const third = await service.create(undefined, null);
    expect(third.status).toBe('running');
    await service.settled();

    // Deleting one the moment it says completed.
    relay.delayReplies(REPLY_DELAY_MS);
    const fourth = await service.create(undefined, null);
    await seenCompleted(fourth.id);
    relay.delayReplies(0);
    await expect(service.remove(fourth.id)).resolves.toEqual({ message: 'Backup deleted successfully' });
  } finally {
    await pool.end({ timeout: 5 });
  }
}, 60_000);
