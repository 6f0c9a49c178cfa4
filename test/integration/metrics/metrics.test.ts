// GET /metrics as a Prometheus scraper sees it: behind the API key by default (public or absent
// by METRICS_ACCESS), in the text format, with request latency by route pattern and status,
// function invocations and errors, the database pool, event-loop lag and process memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer, startTestApp } from '../../harness/test-app.js';

let t: FunctionsApp;

beforeAll(async () => {
  t = await startFunctionsApp();
  await t.deploy('metrics-ok', 'export default () => new Response("ok");', { verifyJwt: false });
  await t.deploy('metrics-fail', 'export default () => { throw new Error("no"); };', { verifyJwt: false });
  await t.deploy(
    'metrics-status',
    'export default (req) => new Response(null, { status: Number(new URL(req.url).searchParams.get("s")) });',
    { verifyJwt: false },
  );
}, 60_000);
afterAll(() => t?.close());

const scrape = async () => {
  const res = await fetch(`${t.baseUrl}/metrics`, { headers: bearer(t.apiKey) });
  expect(res.status).toBe(200);
  return { contentType: res.headers.get('content-type'), text: await res.text() };
};

/** The value of one sample line (labels in the order prom-client writes them). */
const sample = (text: string, name: string, labels = ''): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('access', () => {
  it('needs the API key (or an admin token) by default', async () => {
    expect((await fetch(`${t.baseUrl}/metrics`)).status).toBe(401);
    const user = await t.signUp();
    expect((await fetch(`${t.baseUrl}/metrics`, { headers: bearer(user.accessToken) })).status).toBe(403);
    expect((await fetch(`${t.baseUrl}/metrics`, { headers: bearer(await t.adminToken()) })).status).toBe(200);
  });

  it('is open with METRICS_ACCESS=public and absent with METRICS_ACCESS=off', async () => {
    const open = await startTestApp({ env: { METRICS_ACCESS: 'public' } });
    const off = await startTestApp({ env: { METRICS_ACCESS: 'off' } });
    try {
      expect((await open.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      expect(
        (await off.request({ method: 'GET', url: '/metrics', headers: { 'x-api-key': off.apiKey } })).statusCode,
      ).toBe(404);
    } finally {
      await Promise.all([open.close(), off.close()]);
    }
  });
});

describe('what a scrape reports', () => {
  it('request counts and latency by route pattern, method and status', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${t.baseUrl}/api/health`);
    await fetch(`${t.baseUrl}/api/schedules/00000000-0000-4000-8000-000000000000`, { headers: bearer(t.apiKey) });
    await fetch(`${t.baseUrl}/no/such/route`);
    const { contentType, text } = await scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const health = '{route="/api/health",method="GET",status_code="200"}';
    expect(sample(text, 'plinth_http_request_duration_seconds_count', health)).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'plinth_http_request_duration_seconds_sum', health)).toBeGreaterThan(0);
    expect(
      sample(
        text,
        'plinth_http_request_duration_seconds_bucket',
        '{le="30",route="/api/health",method="GET",status_code="200"}',
      ),
    ).toBeGreaterThanOrEqual(3);
    // The route pattern, not the URL: ids do not make new series.
    expect(
      sample(
        text,
        'plinth_http_request_duration_seconds_count',
        '{route="/api/schedules/:id",method="GET",status_code="404"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'plinth_http_request_duration_seconds_count', '{route="unmatched",method="GET",status_code="404"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('00000000-0000-4000-8000-000000000000');
  });

  it('function invocations and their errors', async () => {
    const before = await scrape();
    const base = (name: string) => sample(before.text, name) ?? 0;
    expect(await (await fetch(`${t.baseUrl}/functions/metrics-ok`)).text()).toBe('ok');
    expect((await fetch(`${t.baseUrl}/functions/metrics-ok`)).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/functions/metrics-fail`)).status).toBe(500);
    const { text } = await scrape();
    expect(sample(text, 'plinth_function_invocations_total')).toBe(base('plinth_function_invocations_total') + 3);
    expect(sample(text, 'plinth_function_invocation_errors_total')).toBe(
      base('plinth_function_invocation_errors_total') + 1,
    );
  });

  it('labels a client cannot multiply: function statuses by class, unknown methods as other', async () => {
    const statuses = [201, 250, 299, 418, 499, 555];
    for (const s of statuses) {
      await fetch(`${t.baseUrl}/functions/metrics-status?s=${s}`);
    }
    await fetch(`${t.baseUrl}/functions/metrics-status?s=200`, { method: 'PROPFIND' });
    await fetch(`${t.baseUrl}/nowhere`, { method: 'MKCOL' });
    const { text } = await scrape();
    const labels = text.split('\n').filter((l) => l.startsWith('plinth_http_request_duration_seconds_count'));
    const ofFunctions = labels.filter((l) => l.includes('route="/functions/*"'));
    for (const s of statuses)
      expect(
        ofFunctions.some((l) => l.includes(`status_code="${s}"`)),
        String(s),
      ).toBe(false);
    for (const cls of ['2xx', '4xx', '5xx']) {
      expect(
        ofFunctions.some((l) => l.includes(`status_code="${cls}"`)),
        cls,
      ).toBe(true);
    }
    expect(labels.some((l) => /method="(PROPFIND|MKCOL)"/.test(l))).toBe(false);
    expect(labels.some((l) => l.includes('method="other"'))).toBe(true);
  });

  it('the database pool, event-loop lag and process memory', async () => {
    const { text } = await scrape();
    expect(sample(text, 'plinth_db_pool_in_use')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'plinth_db_pool_waiting')).toBe(0);
    expect(sample(text, 'plinth_db_pool_size')).toBe(t.config.dbPoolSize);
    expect(sample(text, 'plinth_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'plinth_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'plinth_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(sample(text, 'plinth_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});
