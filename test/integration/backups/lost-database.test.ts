// A backup whose database goes away mid-dump: the dump fails, recording the failure fails too,
// and still the process lives (nothing unhandled), the loss is reported once, and a list shows
// the backup failed.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createBackupsService } from '../../../src/modules/backups/backups.service.js';
import { type DatabaseRelay, startDatabaseRelay } from '../../harness/tcp-relay.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { watchUnhandledRejections } from '../../harness/unhandled-rejections.js';

let t: TestApp;
let relay: DatabaseRelay;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.filler (id int primary key, payload text);
    insert into public.filler select i, repeat(md5(i::text), 8) from generate_series(1, 50000) i;
  `);
  relay = await startDatabaseRelay(t.databaseUrl);
}, 60_000);
afterAll(() => t?.close());

it('fails the backup, reports the loss, and leaves the process nothing unhandled', async () => {
  const pool = postgres(relay.databaseUrl, { max: 2, onnotice: () => {} });
  const reported: unknown[] = [];
  const service = createBackupsService(
    { ...t.deps, sql: pool },
    async () => {},
    (err) => reported.push(err),
  );
  const unhandled = watchUnhandledRejections();
  try {
    const created = await service.create(undefined, null);
    // The database goes: open connections reset, new ones refused.
    await relay.refuse();
    // Not `service.settled()`: awaiting the job would handle its failure; the process must without it.
    await vi.waitFor(() => expect(reported.length + unhandled.reasons.length).toBeGreaterThan(0), {
      timeout: 10_000,
      interval: 10,
    });

    expect(unhandled.reasons).toEqual([]);
    expect(reported).toHaveLength(1);
    const listed = await t.request({ method: 'GET', url: '/api/database/backups', headers: { 'x-api-key': t.apiKey } });
    expect(listed.json.backups.find((b: { id: string }) => b.id === created.id)).toMatchObject({ status: 'failed' });
  } finally {
    unhandled.stop();
    await pool.end({ timeout: 0 });
  }
});
