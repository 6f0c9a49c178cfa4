// Database connections killed under load: a listening Plinth whose PostgreSQL backends are
// terminated while concurrent inserts and reads run must stay up, answer every request within its
// deadline (503 + Retry-After when the database failed it), lose no acknowledged insert, and
// answer normally again afterwards.
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { driveLoad, terminateBackends, waitFor } from './fault-driver.js';
import { WHOLE_POOL_FOR_ANON } from './refusal.js';

const REQUEST_TIMEOUT_MS = 4_000;
let t: TestApp;
let admin: postgres.Sql;
let baseUrl: string;
let database: string;

beforeAll(async () => {
  t = await startTestApp({
    env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), DB_POOL_SIZE: '4', ...WHOLE_POOL_FOR_ANON },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  database = new URL(t.databaseUrl).pathname.slice(1);
  admin = postgres(t.databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'resilience-admin' } });
  await admin.unsafe(`
    create table public.items (id text primary key, note text);
    create policy anyone on public.items for all to anon using (true) with check (true);
    alter table public.items enable row level security;
    grant select, insert on public.items to anon;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

it('survives its backends being terminated under load, loses no acknowledged insert and recovers', {
  timeout: 120_000,
}, async () => {
  const load = driveLoad(baseUrl, 'items', t.anonKey, 8, REQUEST_TIMEOUT_MS + 3_000);
  let terminated = 0;
  try {
    for (let round = 0; round < 6; round++) {
      const before = load.outcomes.length;
      await waitFor(() => load.outcomes.length >= before + 40, 20_000, 'requests to complete between faults').catch(
        (err) => {
          const recent = load.outcomes
            .slice(before)
            .map((o) => `${o.kind}:${o.status}:${Math.round(o.ms)}${o.error ? `:${o.error}` : ''}`);
          throw new Error(`${(err as Error).message} (round ${round}; since the last fault: ${recent.join(', ')})`);
        },
      );
      terminated += await terminateBackends(admin, database, 'plinth');
    }
  } finally {
    await load.stop();
  }
  expect(terminated).toBeGreaterThan(0);

  // Every request got an answer within its deadline, and a failure is a retryable 503.
  const unanswered = load.outcomes.filter((o) => o.status === 0);
  expect(unanswered).toEqual([]);
  const failed = load.outcomes.filter((o) => o.status !== 201 && o.status !== 200);
  for (const o of failed) {
    expect(o.status).toBe(503);
    expect(o.retryAfter).toMatch(/^\d+$/);
  }
  expect(Math.max(...load.outcomes.map((o) => o.ms))).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);

  // Acknowledged inserts are all there.
  const stored = new Set((await admin<{ id: string }[]>`select id from public.items`).map((r) => r.id));
  expect(load.acked.filter((id) => !stored.has(id))).toEqual([]);
  expect(load.acked.length).toBeGreaterThan(100);

  // The server answers normally again within 5 s (a connection killed last may still fail one request).
  const recovered = async () =>
    (
      await fetch(`${baseUrl}/api/database/records/items?limit=1`, {
        headers: { authorization: `Bearer ${t.anonKey}` },
      })
    ).status === 200 && (await fetch(`${baseUrl}/api/health/ready`)).status === 200;
  await waitFor(recovered, 5_000, 'the server to answer normally again');
});
