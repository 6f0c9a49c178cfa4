// The live tail with two servers on one database: a tail open on server A shows the requests
// server B served (once B stored them), and A's own requests once, not twice.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { loadPlatformKeys } from '../../../src/modules/secrets/index.js';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, testConfig, type TestApp } from '../../harness/test-app.js';

let a: TestApp;
let b: { app: FastifyInstance; deps: Deps };

beforeAll(async () => {
  const env = { LOGS_FLUSH_INTERVAL_MS: '3600000' };
  a = await startTestApp({ env });
  const deps = await createDeps(testConfig(a.databaseUrl, env), { clock: new ManualClock() });
  const app = await buildApp(deps, { logger: false, keys: await loadPlatformKeys(deps) });
  await app.ready();
  b = { app, deps };
});
afterAll(async () => {
  await b?.app.close();
  await b?.deps.close();
  await a?.close();
});

it("shows on server A's tail the requests server B served, and A's own once", async () => {
  const port = await freePort();
  await a.app.listen({ port, host: '127.0.0.1' });
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/api/logs/stream?source=requests`, {
    headers: { 'x-api-key': a.apiKey },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const readUntil = async (needle: string) => {
    while (!text.includes(needle)) text += (await reader.read()).value ?? '';
  };
  await readUntil(': tailing');

  const onB = await b.app.inject({
    method: 'GET',
    url: '/api/health?served-by-b',
    headers: { 'x-request-id': 'on-b' },
  });
  expect(onB.statusCode).toBe(200);
  const onA = await a.request({ method: 'GET', url: '/api/health?served-by-a', headers: { 'x-request-id': 'on-a' } });
  expect(onA.statusCode).toBe(200);
  await a.app.logs!.flush();
  await b.app.logs!.flush();
  await readUntil('"requestId":"on-b"');

  const events = text.split('\n\n').filter((e) => e.startsWith('event: log'));
  const ids = events.map(
    (e) =>
      JSON.parse(
        e
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      ).body.requestId,
  );
  expect(ids.filter((id) => id === 'on-b')).toHaveLength(1);
  expect(ids.filter((id) => id === 'on-a')).toHaveLength(1);
  controller.abort();
});
