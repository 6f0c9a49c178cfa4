// Schedules through the admin API (reference §5): create, list, read, update, pause and resume,
// delete; bad cron, time zone and target answered 400 with a fix; header secrets kept as
// templates; the history retention setting; the history of an unknown schedule is empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const secretRef = (key: string) => `\${{secrets.${key}}}`;
let asAdmin: (method: string, url: string, payload?: unknown) => ReturnType<TestApp['request']>;

beforeAll(async () => {
  t = await startTestApp({ env: { API_BASE_URL: 'http://plinth.test' } });
  asAdmin = (method, url, payload) =>
    t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });
  await asAdmin('POST', '/api/secrets', { key: 'CRON_TOKEN', value: 'the-secret-value' });
});
afterAll(() => t.close());

const valid = (extra: Record<string, unknown> = {}) => ({
  name: 'Nightly report',
  cronSchedule: '0 3 * * *',
  functionSlug: 'report',
  httpMethod: 'POST',
  body: { kind: 'nightly' },
  ...extra,
});

describe('create, read, list', () => {
  it('creates a schedule (201 with id and cronJobId) and reads it back with its next run', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid({ timeZone: 'Europe/Paris' }));
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      cronJobId: expect.stringMatching(/^\d+$/),
      message: 'Schedule created successfully',
    });
    const read = await asAdmin('GET', `/api/schedules/${created.json.id}`);
    expect(read.statusCode).toBe(200);
    const now = t.clock.now();
    expect(read.json).toMatchObject({
      id: created.json.id,
      name: 'Nightly report',
      cronSchedule: '0 3 * * *',
      timeZone: 'Europe/Paris',
      functionSlug: 'report',
      functionUrl: 'http://plinth.test/functions/report',
      httpMethod: 'POST',
      headers: null,
      body: { kind: 'nightly' },
      isActive: true,
      cronJobId: created.json.cronJobId,
      missedRunPolicy: 'skip',
      timeoutMs: null,
      lastExecutedAt: null,
    });
    // 03:00 in Paris is 01:00 or 02:00 UTC, within the next day.
    const next = new Date(read.json.nextRun);
    expect(next.getTime()).toBeGreaterThan(now.getTime());
    expect(next.getTime() - now.getTime()).toBeLessThanOrEqual(24 * 3600_000);
    expect([1, 2]).toContain(next.getUTCHours());
    expect(next.getUTCMinutes()).toBe(0);
  });

  it('lists schedules newest first', async () => {
    const first = await asAdmin('POST', '/api/schedules', valid({ name: 'first one' }));
    t.clock.advance(1000);
    const second = await asAdmin('POST', '/api/schedules', valid({ name: 'second one' }));
    const list = await asAdmin('GET', '/api/schedules');
    expect(list.statusCode).toBe(200);
    const ids = list.json.map((s: { id: string }) => s.id);
    expect(ids.indexOf(second.json.id)).toBeLessThan(ids.indexOf(first.json.id));
  });

  it("takes a URL of the project's own API; a function's URL is read as that function", async () => {
    const health = await asAdmin(
      'POST',
      '/api/schedules',
      valid({ functionSlug: undefined, functionUrl: 'http://plinth.test/api/health', httpMethod: 'GET' }),
    );
    expect(health.statusCode).toBe(201);
    expect((await asAdmin('GET', `/api/schedules/${health.json.id}`)).json).toMatchObject({
      functionUrl: 'http://plinth.test/api/health',
      functionSlug: null,
    });
    const fn = await asAdmin(
      'POST',
      '/api/schedules',
      valid({ functionSlug: undefined, functionUrl: 'http://plinth.test/functions/hello' }),
    );
    expect((await asAdmin('GET', `/api/schedules/${fn.json.id}`)).json).toMatchObject({
      functionUrl: 'http://plinth.test/functions/hello',
      functionSlug: 'hello',
    });
    // Another site's /functions/hello is that site's URL, not this project's function.
    const elsewhere = await asAdmin(
      'POST',
      '/api/schedules',
      valid({ functionSlug: undefined, functionUrl: 'https://other.example/functions/hello' }),
    );
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);
    expect((await asAdmin('GET', `/api/schedules/${elsewhere.json.id}`)).json).toMatchObject({
      functionUrl: 'https://other.example/functions/hello',
      functionSlug: null,
    });
  });

  it('accepts the interval form "<n> seconds"', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid({ cronSchedule: ' 30 Seconds ' }));
    expect(created.statusCode).toBe(201);
    const read = await asAdmin('GET', `/api/schedules/${created.json.id}`);
    expect(new Date(read.json.nextRun).getTime() - t.clock.now().getTime()).toBe(30_000);
  });
});

describe('header secrets', () => {
  it('stores and answers the template, never the value', async () => {
    const created = await asAdmin(
      'POST',
      '/api/schedules',
      valid({ headers: { Authorization: `Bearer ${secretRef('CRON_TOKEN')}`, 'X-Plain': 'v' } }),
    );
    expect(created.statusCode).toBe(201);
    const read = await asAdmin('GET', `/api/schedules/${created.json.id}`);
    expect(read.json.headers).toEqual({ Authorization: `Bearer ${secretRef('CRON_TOKEN')}`, 'X-Plain': 'v' });
    expect(read.body).not.toContain('the-secret-value');
    const list = await asAdmin('GET', '/api/schedules');
    expect(list.body).not.toContain('the-secret-value');
  });

  it('answers 404 SECRET_NOT_FOUND naming the secret and the header', async () => {
    const res = await asAdmin('POST', '/api/schedules', valid({ headers: { 'X-Key': secretRef('NOPE') } }));
    expect(res.statusCode).toBe(404);
    expect(res.json).toMatchObject({
      error: 'SECRET_NOT_FOUND',
      message: 'Secret with key "NOPE" not found for schedule header "X-Key".',
      nextActions: expect.stringContaining('POST /api/secrets'),
    });
  });
});

describe('bad input', () => {
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['six cron fields', { cronSchedule: '0 0 3 * * *' }, 400, 'SCHEDULE_INVALID_CRON'],
    ['a minute of 61', { cronSchedule: '61 * * * *' }, 400, 'SCHEDULE_INVALID_CRON'],
    ['a date that never comes', { cronSchedule: '0 0 30 2 *' }, 400, 'SCHEDULE_INVALID_CRON'],
    ['an interval of 60 seconds', { cronSchedule: '60 seconds' }, 400, 'SCHEDULE_INVALID_CRON'],
    ['junk', { cronSchedule: 'every day' }, 400, 'SCHEDULE_INVALID_CRON'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 400, 'SCHEDULE_INVALID_TIME_ZONE'],
    ['a private address', { functionSlug: undefined, functionUrl: 'http://10.0.0.7/x' }, 400, 'VALIDATION_ERROR'],
    ['no target', { functionSlug: undefined }, 400, 'VALIDATION_ERROR'],
    ['both targets', { functionUrl: 'http://plinth.test/api/health' }, 400, 'VALIDATION_ERROR'],
    ['a short name', { name: 'ab' }, 400, 'VALIDATION_ERROR'],
    ['a bad method', { httpMethod: 'TRACE' }, 400, 'VALIDATION_ERROR'],
  ];
  it.each(cases)('%s: %i %s with a fix', async (_label, extra, status, code) => {
    const res = await asAdmin('POST', '/api/schedules', valid(extra));
    expect(res.statusCode).toBe(status);
    expect(res.json).toMatchObject({ error: code, statusCode: status });
    expect(res.json.nextActions ?? res.json.message).toEqual(expect.any(String));
    if (code !== 'VALIDATION_ERROR') expect(res.json.nextActions).toEqual(expect.any(String));
  });

  it('a missing name says what a name is, and so does the API reference', async () => {
    const res = await asAdmin('POST', '/api/schedules', valid({ name: undefined }));
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'name' }] });
    expect(res.json.message).toBe(
      'name: is required: a label of 3 to 255 characters for people (not unique; the id addresses the schedule)',
    );
    const reference = await t.request({ method: 'GET', url: '/api/openapi.json' });
    const body = reference.json.paths['/api/schedules'].post.requestBody.content['application/json'].schema;
    expect(body.required).toContain('name');
    expect(body.properties.name.description).toMatch(/^Required\. A label .*3 to 255 characters.*not unique/);
    expect(reference.json.paths['/api/schedules'].post.summary).toMatch(/\bname\b/);
  });

  it('a bad cron in an update leaves the schedule as it was', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid());
    const res = await asAdmin('PATCH', `/api/schedules/${created.json.id}`, { cronSchedule: '* * *' });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('SCHEDULE_INVALID_CRON');
    expect((await asAdmin('GET', `/api/schedules/${created.json.id}`)).json.cronSchedule).toBe('0 3 * * *');
  });

  it('unknown and malformed ids', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, payload] of [['GET'], ['PATCH', { name: 'whatever' }], ['DELETE']] as const) {
      const res = await asAdmin(method, `/api/schedules/${unknown}`, payload);
      expect(res.statusCode).toBe(404);
      expect(res.json).toMatchObject({ error: 'SCHEDULE_NOT_FOUND', nextActions: expect.any(String) });
    }
    expect((await asAdmin('GET', '/api/schedules/not-a-uuid')).statusCode).toBe(400);
  });
});

describe('update, pause, resume, delete', () => {
  it('pauses (no next run) and resumes (next run from now); cronJobId as the reference answers it', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid({ cronSchedule: '*/5 * * * *' }));
    const id = created.json.id;
    const paused = await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: false });
    expect(paused.statusCode).toBe(200);
    // After a pure toggle the reply carries the value from before it.
    expect(paused.json).toEqual({ id, cronJobId: created.json.cronJobId, message: 'Schedule updated successfully' });
    expect((await asAdmin('GET', `/api/schedules/${id}`)).json).toMatchObject({
      isActive: false,
      cronJobId: null,
      nextRun: null,
    });
    t.clock.advance(60 * 60_000);
    const resumed = await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: true });
    expect(resumed.json.cronJobId).toBeNull();
    const read = (await asAdmin('GET', `/api/schedules/${id}`)).json;
    expect(read).toMatchObject({ isActive: true, cronJobId: created.json.cronJobId });
    expect(new Date(read.nextRun).getTime()).toBeGreaterThan(t.clock.now().getTime());
  });

  it('changing any other field re-activates a paused schedule and keeps what was not sent', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid({ headers: { 'X-A': '1' } }));
    const id = created.json.id;
    await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: false });
    const res = await asAdmin('PATCH', `/api/schedules/${id}`, {
      cronSchedule: '15 * * * *',
      missedRunPolicy: 'run_once',
      timeoutMs: 5000,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json.cronJobId).toBe(created.json.cronJobId);
    expect((await asAdmin('GET', `/api/schedules/${id}`)).json).toMatchObject({
      cronSchedule: '15 * * * *',
      isActive: true,
      missedRunPolicy: 'run_once',
      timeoutMs: 5000,
      headers: { 'X-A': '1' },
      body: { kind: 'nightly' },
      functionSlug: 'report',
    });
    const cleared = await asAdmin('PATCH', `/api/schedules/${id}`, { headers: null, functionSlug: 'other' });
    expect(cleared.statusCode).toBe(200);
    expect((await asAdmin('GET', `/api/schedules/${id}`)).json).toMatchObject({ headers: null, functionSlug: 'other' });
  });

  it('deletes a schedule', async () => {
    const created = await asAdmin('POST', '/api/schedules', valid());
    const res = await asAdmin('DELETE', `/api/schedules/${created.json.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ message: 'Schedule deleted successfully.' });
    expect((await asAdmin('GET', `/api/schedules/${created.json.id}`)).statusCode).toBe(404);
  });
});

describe('history and its retention setting', () => {
  it('an unknown schedule has an empty history; limit and offset are clamped', async () => {
    const res = await asAdmin('GET', '/api/schedules/00000000-0000-4000-8000-000000000000/logs?limit=500&offset=-3');
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ logs: [], totalCount: 0, limit: 100, offset: 0 });
    const junk = await asAdmin('GET', '/api/schedules/00000000-0000-4000-8000-000000000000/logs?limit=abc');
    expect(junk.json.limit).toBe(50);
  });

  it('retention defaults to 7 days and can be changed or turned off', async () => {
    expect((await asAdmin('GET', '/api/schedules/config')).json).toEqual({ retentionDays: 7 });
    const res = await asAdmin('PATCH', '/api/schedules/config', { retentionDays: 30 });
    expect(res.json).toEqual({ message: 'Schedules config updated successfully' });
    expect((await asAdmin('GET', '/api/schedules/config')).json).toEqual({ retentionDays: 30 });
    await asAdmin('PATCH', '/api/schedules/config', { retentionDays: null });
    expect((await asAdmin('GET', '/api/schedules/config')).json).toEqual({ retentionDays: null });
    expect((await asAdmin('PATCH', '/api/schedules/config', { retentionDays: 0 })).statusCode).toBe(400);
  });
});
