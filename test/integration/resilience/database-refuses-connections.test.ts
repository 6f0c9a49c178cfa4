// A database that refuses new connections (ALTER DATABASE … ALLOW_CONNECTIONS false, SQLSTATE
// 55000 on connect): the server's temporary trouble, so 503 + Retry-After, never a 500; and
// normal answers again once the database takes connections again.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';

let t: TestApp;
let superuser: postgres.Sql;
let database: string;

beforeAll(async () => {
  t = await startTestApp();
  database = new URL(t.databaseUrl).pathname.slice(1);
  // On the server's own database: ours must not be one of the connections the test refuses.
  superuser = postgres(inject('serverUrl'), { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await superuser?.unsafe(`alter database ${database} allow_connections true`);
  await superuser?.end();
  await t?.close();
});

it('answers 503 with Retry-After while the database refuses new connections, and 200 once it takes them again', async () => {
  const admin = await t.adminToken();
  const read = () => t.request({ method: 'GET', url: '/api/database/records/_missing_', headers: bearer(admin) });
  const tables = () => t.request({ method: 'GET', url: '/api/database/tables', headers: bearer(admin) });
  expect((await tables()).statusCode).toBe(200);

  await superuser.unsafe(`alter database ${database} allow_connections false`);
  try {
    // Connections already open stay open: end them, so the next request needs a new one.
    await superuser`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database}`;
    await waitFor(
      async () => (await superuser`select 1 from pg_stat_activity where datname = ${database}`).length === 0,
      10_000,
      'the database to have no connections',
    );
    for (const res of [await tables(), await read()]) {
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.json).toMatchObject({
        error: 'SERVICE_UNAVAILABLE',
        statusCode: 503,
        nextActions: expect.any(String),
      });
    }
  } finally {
    await superuser.unsafe(`alter database ${database} allow_connections true`);
  }
  await waitFor(async () => (await tables()).statusCode === 200, 10_000, 'the database to answer again');
});
