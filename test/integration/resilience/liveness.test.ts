// Liveness: /api/health fails while database work is stuck (a request past its deadline whose
// connection never answers, and nothing settles), and passes again once the database answers.
// The database is reached through a TCP relay the test can freeze (bytes held, nothing closed).
import { createConnection, createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { startTestApp, testConfig, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';

let t: TestApp;
let relay: NetServer;
const clients = new Set<Socket>();
let deps: Deps;
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.notes (id int primary key);
    grant select on public.notes to anon;
  `);
  const target = new URL(t.databaseUrl);
  relay = createServer((client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    clients.add(client);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      clients.delete(client);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
  const url = new URL(t.databaseUrl);
  url.port = String((relay.address() as AddressInfo).port);
  deps = await createDeps(testConfig(url.toString(), { DB_POOL_SIZE: '2', REQUEST_TIMEOUT_MS: '1000' }), {
    clock: new ManualClock(),
  });
  app = await buildApp(deps, { logger: false });
});

afterAll(async () => {
  for (const c of clients) c.resume();
  await app?.close();
  await deps?.close();
  for (const c of clients) c.destroy();
  await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
  await t?.close();
});

const health = async () => (await app.inject({ method: 'GET', url: '/api/health' })).statusCode;

it('fails liveness while database work is stuck past its deadline, and recovers when the database answers', {
  timeout: 60_000,
}, async () => {
  const read = () =>
    app.inject({
      method: 'GET',
      url: '/api/database/records/notes',
      headers: { authorization: `Bearer ${t.anonKey}` },
    });
  expect((await read()).statusCode).toBe(200);
  expect(await health()).toBe(200);

  for (const c of clients) c.pause(); // Plinth's bytes stay in the relay: the database never sees the query
  const stuck = await read();
  expect(stuck.statusCode).toBe(503);
  expect(stuck.headers['retry-after']).toBe('1');
  await waitFor(async () => (await health()) === 503, 10_000, 'liveness to fail');
  const body = (await app.inject({ method: 'GET', url: '/api/health' })).json();
  expect(body).toMatchObject({ status: 'wedged' });
  expect(body.reason).toMatch(/database work stuck/);

  for (const c of clients) c.resume();
  await waitFor(async () => (await health()) === 200, 10_000, 'liveness to pass again');
  expect((await read()).statusCode).toBe(200);
});
