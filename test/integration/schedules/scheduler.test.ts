// The scheduler against the real Deno runtime, driven by the manual clock (no real timer ticks):
// a due time fires once, with header secrets resolved for the function only; two servers on one
// database racing for the same due times fire each once; failures and timeouts are recorded;
// missed due times are skipped or run once; runs left by a stopped server are taken over; the
// history route pages the runs; a stopped scheduler claims nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createScheduler, type Scheduler } from '../../../src/modules/schedules/index.js';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import type { Server } from '../../harness/test-app.js';

const SECRET_VALUE = 'resolved-at-run-time-7f3a';
const secretRef = (key: string) => `\${{secrets.${key}}}`;

let t: FunctionsApp;
let scheduler: Scheduler;
let asAdmin: (method: string, url: string, payload?: unknown) => ReturnType<FunctionsApp['request']>;

beforeAll(async () => {
  t = await startFunctionsApp({ SCHEDULES_POLL_MS: '0', SCHEDULES_MISSED_RUN_GRACE_MS: '60000' });
  asAdmin = (method, url, payload) =>
    t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });
  scheduler = createScheduler(t.deps);
  await asAdmin('POST', '/api/secrets', { key: 'CRON_TOKEN', value: SECRET_VALUE });
  const deployed = await Promise.all([
    t.deploy(
      'sched-echo',
      `export default async (req) => Response.json({
        method: req.method,
        body: await req.text(),
        tokenMatches: req.headers.get('x-token') === 'Bearer ${SECRET_VALUE}',
        plain: req.headers.get('x-plain'),
      });`,
    ),
    t.deploy('sched-fail', `export default () => { throw new Error('scheduled failure'); };`),
    t.deploy('sched-slow', 'export default () => new Promise(() => {});'),
  ]);
  for (const res of deployed) expect(res.statusCode).toBeLessThan(300);
}, 60_000);
afterAll(async () => {
  await scheduler?.stop();
  await t?.close();
});
// Every schedule goes after its test, so a later tick fires only the next test's schedules.
afterEach(async () => {
  for (const s of (await asAdmin('GET', '/api/schedules')).json) await asAdmin('DELETE', `/api/schedules/${s.id}`);
});

async function createSchedule(fields: Record<string, unknown>): Promise<string> {
  const res = await asAdmin('POST', '/api/schedules', {
    name: 'scheduled test',
    cronSchedule: '*/5 * * * *',
    httpMethod: 'POST',
    ...fields,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json.id;
}

const readSchedule = async (id: string) => (await asAdmin('GET', `/api/schedules/${id}`)).json;
const logsOf = async (id: string, query = '') => (await asAdmin('GET', `/api/schedules/${id}/logs${query}`)).json;

/** Moves the clock to the schedule's next due time (plus `extraMs`). */
async function advanceToNextRun(id: string, extraMs = 0): Promise<Date> {
  const due = new Date((await readSchedule(id)).nextRun);
  t.clock.advance(due.getTime() - t.clock.now().getTime() + extraMs);
  return due;
}

describe('firing on the due time', () => {
  it('fires once when the clock reaches the due time, with the secret resolved for the function only', async () => {
    const id = await createSchedule({
      functionSlug: 'sched-echo',
      headers: { 'X-Token': `Bearer ${secretRef('CRON_TOKEN')}`, 'X-Plain': 'plain-value' },
      body: { kind: 'report' },
    });
    t.clock.advance(1000);
    expect((await scheduler.tick()).started).toBe(0);

    const due = await advanceToNextRun(id, 250);
    expect(await scheduler.tick()).toEqual({ started: 1, recovered: 0, skipped: 0 });
    expect((await scheduler.tick()).started).toBe(0);

    const { logs, totalCount } = await logsOf(id);
    expect(totalCount).toBe(1);
    const [run] = logs;
    expect(run).toMatchObject({
      scheduleId: id,
      dueAt: due.toISOString(),
      executedAt: t.clock.now().toISOString(),
      status: 'success',
      success: true,
      statusCode: 200,
      message: 'Success',
      attempt: 1,
    });
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(run.excerpt)).toEqual({
      method: 'POST',
      body: '{"kind":"report"}',
      tokenMatches: true,
      plain: 'plain-value',
    });

    const schedule = await readSchedule(id);
    expect(schedule.lastExecutedAt).toBe(t.clock.now().toISOString());
    expect(new Date(schedule.nextRun).getTime()).toBe(due.getTime() + 5 * 60_000);
    // Neither the stored schedule nor its history holds the secret's value.
    const [stored] = await t.deps.sql`
      select s.headers::text as headers, coalesce(string_agg(r.excerpt || r.message, ''), '') as runs
      from schedules.schedules s left join schedules.runs r on r.schedule_id = s.id
      where s.id = ${id} group by s.id`;
    expect(stored!.headers).toContain(secretRef('CRON_TOKEN'));
    expect(`${stored!.headers}${stored!.runs}`).not.toContain(SECRET_VALUE);
  });

  it('a run reads the secret as it is then: a deactivated secret fails the run', async () => {
    await asAdmin('POST', '/api/secrets', { key: 'SHORT_LIVED', value: 'v' });
    const id = await createSchedule({ functionSlug: 'sched-echo', headers: { 'X-Token': secretRef('SHORT_LIVED') } });
    await asAdmin('DELETE', '/api/secrets/SHORT_LIVED');
    await advanceToNextRun(id);
    await scheduler.tick();
    expect((await logsOf(id)).logs[0]).toMatchObject({
      status: 'failed',
      success: false,
      message: 'Secret with key "SHORT_LIVED" not found for schedule header "X-Token".',
    });
  });

  it("calls a URL of the project's own API", async () => {
    const id = await createSchedule({
      functionUrl: `${t.baseUrl}/api/health`,
      httpMethod: 'GET',
      cronSchedule: '10 seconds',
    });
    await advanceToNextRun(id);
    await scheduler.tick();
    expect((await logsOf(id)).logs[0]).toMatchObject({ status: 'success', statusCode: 200 });
  });

  it('a paused schedule does not fire', async () => {
    const id = await createSchedule({ functionSlug: 'sched-echo', cronSchedule: '10 seconds' });
    await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: false });
    t.clock.advance(60_000);
    await scheduler.tick();
    expect((await logsOf(id)).totalCount).toBe(0);
  });
});

describe('two servers on one database', () => {
  let other: Server;
  let otherScheduler: Scheduler;
  beforeAll(async () => {
    other = await t.startAnotherServer();
    otherScheduler = createScheduler(other.deps);
  });
  afterAll(async () => {
    await otherScheduler?.stop();
    await other?.close();
  });

  it('racing for the same due times, each due time runs exactly once', async () => {
    const ids = [
      await createSchedule({ functionUrl: `${t.baseUrl}/api/health`, httpMethod: 'GET', cronSchedule: '10 seconds' }),
      await createSchedule({ functionUrl: `${t.baseUrl}/api/health`, httpMethod: 'GET', cronSchedule: '10 seconds' }),
    ];
    let started = 0;
    for (let round = 0; round < 5; round++) {
      t.clock.advance(10_000);
      const reports = await Promise.all([
        scheduler.tick(),
        otherScheduler.tick(),
        scheduler.tick(),
        otherScheduler.tick(),
      ]);
      started += reports.reduce((sum, r) => sum + r.started, 0);
    }
    expect(started).toBe(10);
    for (const id of ids) {
      const { logs, totalCount } = await logsOf(id);
      expect(totalCount).toBe(5);
      expect(new Set(logs.map((l: { dueAt: string }) => l.dueAt)).size).toBe(5);
      expect(logs.every((l: { status: string }) => l.status === 'success')).toBe(true);
    }
  });
});

describe('runs that go wrong', () => {
  it('a function that throws is recorded as failed with its status and an excerpt', async () => {
    const id = await createSchedule({ functionSlug: 'sched-fail' });
    await advanceToNextRun(id);
    await scheduler.tick();
    const [run] = (await logsOf(id)).logs;
    expect(run).toMatchObject({ status: 'failed', success: false, statusCode: 500, message: 'HTTP 500' });
    expect(run.excerpt).toEqual(expect.stringContaining('scheduled failure'));
  });

  it('a function that runs past the timeout is recorded as timed out', async () => {
    const id = await createSchedule({ functionSlug: 'sched-slow', timeoutMs: 400 });
    await advanceToNextRun(id);
    await scheduler.tick();
    const [run] = (await logsOf(id)).logs;
    expect(run).toMatchObject({
      status: 'timed_out',
      success: false,
      statusCode: 504,
      message: 'Timed out after 400 ms',
    });
    expect(run.durationMs).toBeGreaterThanOrEqual(400);
  });

  it('a function that does not exist is recorded as failed', async () => {
    const id = await createSchedule({ functionSlug: 'sched-missing' });
    await advanceToNextRun(id);
    await scheduler.tick();
    expect((await logsOf(id)).logs[0]).toMatchObject({
      status: 'failed',
      statusCode: 404,
      message: 'Function "sched-missing" not found or not active',
    });
  });
});

describe('downtime', () => {
  it('missed due times: "skip" fires nothing, "run_once" fires once; both continue after now', async () => {
    const skip = await createSchedule({ functionSlug: 'sched-echo', missedRunPolicy: 'skip' });
    const once = await createSchedule({ functionSlug: 'sched-echo', missedRunPolicy: 'run_once' });
    // An hour with no server ticking: twelve due times missed.
    t.clock.advance(60 * 60_000);
    expect(await scheduler.tick()).toEqual({ started: 1, recovered: 0, skipped: 1 });
    expect((await scheduler.tick()).started).toBe(0);
    expect((await logsOf(skip)).totalCount).toBe(0);
    expect((await logsOf(once)).totalCount).toBe(1);
    for (const id of [skip, once]) {
      const next = new Date((await readSchedule(id)).nextRun).getTime();
      expect(next).toBeGreaterThan(t.clock.now().getTime());
      expect(next - t.clock.now().getTime()).toBeLessThanOrEqual(5 * 60_000);
    }
    // The next due time fires normally under either policy.
    await advanceToNextRun(skip);
    expect((await scheduler.tick()).started).toBe(2);
  });

  it('a run left unfinished by a stopped server is run again once its lease is over, then given up', async () => {
    const id = await createSchedule({ functionSlug: 'sched-echo', timeoutMs: 1000 });
    const now = t.clock.now();
    // What a server that died mid-run leaves: a running row whose lease has not ended yet.
    const leftBehind = async (dueAt: Date, attempt: number) => {
      const [row] = await t.deps.sql`
        insert into schedules.runs (schedule_id, due_at, started_at, lease_until, status, attempt)
        values (${id}, ${dueAt}, ${now}, ${new Date(now.getTime() + 31_000)}, 'running', ${attempt}) returning id`;
      return row!.id as string;
    };
    const retried = await leftBehind(new Date(now.getTime() - 60_000), 1);
    const givenUp = await leftBehind(new Date(now.getTime() - 120_000), 2);
    expect((await scheduler.tick()).recovered).toBe(0);
    t.clock.advance(31_000);
    expect((await scheduler.tick()).recovered).toBe(1);
    const { logs } = await logsOf(id);
    expect(logs.find((l: { id: string }) => l.id === retried)).toMatchObject({ status: 'success', attempt: 2 });
    expect(logs.find((l: { id: string }) => l.id === givenUp)).toMatchObject({
      status: 'failed',
      attempt: 2,
      message: expect.stringContaining('Abandoned'),
    });
  });
});

describe('history', () => {
  it('pages the runs newest first', async () => {
    const id = await createSchedule({ functionSlug: 'sched-echo', cronSchedule: '10 seconds' });
    const dues: string[] = [];
    for (let i = 0; i < 4; i++) {
      dues.push((await advanceToNextRun(id)).toISOString());
      await scheduler.tick();
    }
    const page = await logsOf(id, '?limit=2&offset=1');
    expect(page).toMatchObject({ totalCount: 4, limit: 2, offset: 1 });
    expect(page.logs.map((l: { dueAt: string }) => l.dueAt)).toEqual([dues[2], dues[1]]);
  });

  it('runs older than the retention are deleted', async () => {
    const id = await createSchedule({ functionSlug: 'sched-echo', cronSchedule: '10 seconds' });
    await advanceToNextRun(id);
    await scheduler.tick();
    await asAdmin('PATCH', '/api/schedules/config', { retentionDays: 1 });
    await asAdmin('PATCH', `/api/schedules/${id}`, { isActive: false });
    t.clock.advance(2 * 86_400_000);
    // The pruning runs at most hourly per server: a fresh scheduler prunes on its first tick.
    const fresh = createScheduler(t.deps);
    await fresh.tick();
    await fresh.stop();
    expect((await logsOf(id)).totalCount).toBe(0);
  });
});

describe('stopping', () => {
  it('a stopped scheduler claims nothing; another server fires the due time', async () => {
    const id = await createSchedule({ functionSlug: 'sched-echo', cronSchedule: '10 seconds' });
    const stopped = createScheduler(t.deps);
    await stopped.stop();
    await advanceToNextRun(id);
    expect((await stopped.tick()).started).toBe(0);
    expect((await scheduler.tick()).started).toBe(1);
  });
});
