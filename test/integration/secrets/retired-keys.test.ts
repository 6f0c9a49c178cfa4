// Retired API/anon keys are deleted for good once their grace period has ended: at the next
// rotation (of either key) or the next server start, on the injected clock. Keys still in their
// grace period stay, and keep working.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let apiKey: string;
beforeAll(async () => {
  t = await startTestApp();
  apiKey = t.apiKey;
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const rotate = async (path: 'api-key' | 'anon-key', gracePeriodHours: number) => {
  const res = await t.request({
    method: 'POST',
    url: `/api/secrets/${path}/rotate`,
    headers: { 'x-api-key': apiKey },
    payload: { gracePeriodHours },
  });
  expect(res.statusCode).toBe(200);
  return res.json as { apiKey?: string; anonKey?: string };
};
/** The retired keys the secrets API lists, by name. */
const retired = async () => {
  const res = await t.request({ method: 'GET', url: '/api/secrets', headers: bearer(apiKey) });
  return (res.json.secrets as { key: string }[])
    .map((s) => s.key)
    .filter((k) => k.includes('_OLD_'))
    .sort();
};
const stamp = () => t.clock.now().getTime();

it('an expired retired key is deleted at the next rotation; one still in its grace period stays', async () => {
  const firstApi = apiKey;
  const a = `API_KEY_OLD_${stamp()}`;
  apiKey = (await rotate('api-key', 1)).apiKey!;
  const b = `ANON_KEY_OLD_${stamp()}`;
  await rotate('anon-key', 2);
  expect(await retired()).toEqual([b, a].sort());

  t.clock.advance(HOUR);
  const c = `API_KEY_OLD_${stamp()}`;
  const previousApi = apiKey;
  apiKey = (await rotate('api-key', 24)).apiKey!;
  expect(await retired()).toEqual([b, c].sort());
  const [gone] = await t.deps.sql`select count(*)::int as n from system.secrets where key = ${a}`;
  expect(gone!.n).toBe(0);
  expect((await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(firstApi) })).statusCode).toBe(
    401,
  );
  expect(
    (await t.request({ method: 'GET', url: '/api/metadata/api-key', headers: bearer(previousApi) })).statusCode,
  ).toBe(200);
});

it('an expired retired key is deleted when a server starts', async () => {
  t.clock.advance(HOUR);
  // The anon key retired for 2 h has now expired; no rotation since.
  expect((await retired()).filter((k) => k.startsWith('ANON_KEY_OLD_'))).toHaveLength(1);
  const later = await t.startAnotherServer();
  try {
    const left = await retired();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^API_KEY_OLD_\d+$/);
  } finally {
    await later.close();
  }
});
