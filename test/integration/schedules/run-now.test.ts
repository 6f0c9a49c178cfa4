// Running a schedule now and previewing a timing, over HTTP against a listening server whose API
// the schedules call: the run is answered once it ended and is in the history; a paused schedule
// runs too; a failing target is recorded as failed; unknown ids are 404; the preview lists the next
// due times from the clock and rejects a bad timing with a fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let baseUrl = '';
let asAdmin: (method: string, url: string, payload?: unknown) => ReturnType<TestApp['request']>;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl, SCHEDULES_POLL_MS: '0' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  asAdmin = (method, url, payload) =>
    t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });
});
afterAll(() => t?.close());

async function createSchedule(path: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin('POST', '/api/schedules', {
    name: `run now ${path}`,
    cronSchedule: '0 3 * * *',
    functionUrl: `${baseUrl}${path}`,
    httpMethod: 'GET',
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json.id;
}

describe('POST /api/schedules/:id/run', () => {
  it('runs the target now and answers the run, which the history then holds', async () => {
    const id = await createSchedule('/api/health');
    const run = await asAdmin('POST', `/api/schedules/${id}/run`);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json).toMatchObject({
      scheduleId: id,
      status: 'success',
      success: true,
      statusCode: 200,
      executedAt: t.clock.now().toISOString(),
      attempt: 1,
    });
    expect(run.json.excerpt).toContain('"status"');
    const logs = await asAdmin('GET', `/api/schedules/${id}/logs`);
    expect(logs.json.totalCount).toBe(1);
    expect(logs.json.logs[0]).toEqual(run.json);
    expect((await asAdmin('GET', `/api/schedules/${id}`)).json.lastExecutedAt).toBe(run.json.executedAt);
  });

  it('runs a paused schedule and records a failing target as failed', async () => {
    const id = await createSchedule('/api/no-such-route');
    expect((await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: false })).statusCode).toBe(200);
    const run = await asAdmin('POST', `/api/schedules/${id}/run`);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json).toMatchObject({ status: 'failed', success: false, statusCode: 404 });
    expect((await asAdmin('GET', `/api/schedules/${id}`)).json.isActive).toBe(false);
  });

  it('answers 409 for a second run at the same instant and 404 for an unknown schedule', async () => {
    const id = await createSchedule('/api/health');
    expect((await asAdmin('POST', `/api/schedules/${id}/run`)).statusCode).toBe(200);
    const again = await asAdmin('POST', `/api/schedules/${id}/run`);
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ error: 'CONFLICT', nextActions: expect.stringContaining('/logs') });
    t.clock.advance(1000);
    expect((await asAdmin('POST', `/api/schedules/${id}/run`)).statusCode).toBe(200);

    const unknown = await asAdmin('POST', '/api/schedules/00000000-0000-4000-8000-000000000000/run');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.error).toBe('SCHEDULE_NOT_FOUND');
  });
});

describe('GET /api/schedules/preview', () => {
  it('lists the next due times from now, in the time zone', async () => {
    const now = t.clock.now();
    const hourly = await asAdmin('GET', '/api/schedules/preview?cronSchedule=0%20*%20*%20*%20*&count=3');
    expect(hourly.statusCode, hourly.body).toBe(200);
    const runs = hourly.json.nextRuns.map((r: string) => new Date(r));
    expect(runs).toHaveLength(3);
    expect(runs[0].getTime()).toBeGreaterThan(now.getTime());
    expect(runs[0].getTime() - now.getTime()).toBeLessThanOrEqual(3600_000);
    for (const run of runs) expect(run.getUTCMinutes()).toBe(0);
    expect(runs[2].getTime() - runs[1].getTime()).toBe(3600_000);

    const interval = await asAdmin('GET', '/api/schedules/preview?cronSchedule=30%20seconds');
    expect(interval.json.nextRuns).toHaveLength(5);
    expect(interval.json.nextRuns[0]).toBe(new Date(now.getTime() + 30_000).toISOString());

    const paris = await asAdmin('GET', '/api/schedules/preview?cronSchedule=0%203%20*%20*%20*&timeZone=Europe/Paris');
    expect([1, 2]).toContain(new Date(paris.json.nextRuns[0]).getUTCHours());
  });

  it('answers 400 with a fix for a bad timing or time zone', async () => {
    const bad = await asAdmin('GET', '/api/schedules/preview?cronSchedule=every%20day');
    expect(bad.statusCode).toBe(400);
    expect(bad.json).toMatchObject({ error: 'SCHEDULE_INVALID_CRON', nextActions: expect.stringContaining('five') });
    const zone = await asAdmin('GET', '/api/schedules/preview?cronSchedule=0%203%20*%20*%20*&timeZone=Mars/Base');
    expect(zone.json.error).toBe('SCHEDULE_INVALID_TIME_ZONE');
  });
});
