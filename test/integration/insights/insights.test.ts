// The console's charts as an admin reads them through /api/insights: every number checked against
// the rows it aggregates (logs.entries, realtime.messages, auth, storage), both for minutes read
// from the raw rows and, after the clock moves on and the rollup folds them, from the rollup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });
const HOUR = 3_600_000;

/** The latency bucket a duration falls in (insights' ~13 % wide buckets). */
const bucketOf = (ms: number) => Math.floor(Math.log(1 + ms) * 8);

async function insights(family: string, query = '') {
  const res = await t.request({ method: 'GET', url: `/api/insights/${family}${query}`, headers: admin() });
  expect(res.statusCode, res.body).toBe(200);
  return res.json;
}

const sum = (points: Record<string, number>[], key: string) => points.reduce((n, p) => n + (p[key] ?? 0), 0);

/** What the logs hold for [from, to): counts by status class and the exact p50/p95 durations. */
async function fromLogs(source: 'requests' | 'functions', from: string, to: string, slug?: string) {
  const [row] = await t.deps.sql.unsafe(
    `select count(*)::int as total,
            count(*) filter (where status / 100 = 2)::int as s2, count(*) filter (where status / 100 = 4)::int as s4,
            count(*) filter (where status / 100 = 5)::int as s5,
            percentile_disc(0.5) within group (order by greatest(coalesce(duration_ms, 0), 0)) as p50,
            percentile_disc(0.95) within group (order by greatest(coalesce(duration_ms, 0), 0)) as p95
       from logs.entries
      where source = $1 and status is not null and ts >= $2 and ts < $3
        and (route is null or route not like '/dashboard%') and ($4::text is null or slug = $4)`,
    [source, from, to, slug ?? null],
  );
  return row as unknown as { total: number; s2: number; s4: number; s5: number; p50: number; p95: number };
}

/** A function's invocation as the request logger records it. */
function invocation(slug: string, status: number, durationMs: number) {
  t.app.logs!.record({
    id: crypto.randomUUID(),
    ts: t.clock.now(),
    source: 'functions',
    level: status >= 500 ? 'error' : 'info',
    method: 'POST',
    route: '/functions/*',
    status,
    durationMs,
    principal: 'anon',
    userId: null,
    ip: '127.0.0.1',
    requestId: crypto.randomUUID(),
    slug,
    message: `POST /functions/${slug} ${status}`,
    details: null,
  });
}

beforeAll(async () => {
  // Flushes happen when a test asks; the rollup folds minutes older than the flush interval.
  t = await startTestApp({ env: { LOGS_FLUSH_INTERVAL_MS: '600000' } });
});
afterAll(() => t?.close());

describe('realtime', () => {
  // First: messages are stamped by the database's clock, which the test's clock leaves behind below.
  it('counts messages per channel as realtime.messages holds them', async () => {
    await t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: admin(),
      payload: { pattern: 'room:%' },
    });
    for (const channel of ['room:1', 'room:1', 'room:1', 'room:2']) {
      await t.deps.sql`select realtime.publish(${channel}, 'said', '{}'::jsonb)`;
    }
    const rt = await insights('realtime', '?range=hour');
    const [count] = await t.deps.sql<{ n: number }[]>`select count(*)::int as n from realtime.messages
                                      where created_at >= ${rt.from} and created_at < ${rt.to}`;
    expect(sum(rt.points, 'messages')).toBe(count!.n);
    expect(rt.channels.slice(0, 2)).toEqual([
      { channel: 'room:1', messages: 3 },
      { channel: 'room:2', messages: 1 },
    ]);
  });
});

describe('traffic', () => {
  it('counts requests by status class with p50/p95 in the right latency bucket, from raw rows and from the rollup', async () => {
    const user = await t.signUp();
    for (let i = 0; i < 6; i++) {
      await t.request({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(user.accessToken) });
    }
    for (let i = 0; i < 3; i++) {
      await t.request({ method: 'GET', url: '/api/database/records/no_such_table', headers: bearer(user.accessToken) });
    }
    await t.request({ method: 'GET', url: '/api/secrets', headers: bearer(user.accessToken) }); // 403
    await t.request({ method: 'GET', url: '/dashboard/' }); // the console's own asset: not traffic
    await t.app.logs!.flush();

    const live = await insights('traffic', '?range=hour');
    expect(live.points).toHaveLength(60);
    expect(live.bucketSeconds).toBe(60);
    const logs = await fromLogs('requests', live.from, live.to);
    expect(logs.total).toBeGreaterThanOrEqual(11);
    expect(sum(live.points, 'total')).toBe(logs.total);
    expect(sum(live.points, 's2xx')).toBe(logs.s2);
    expect(sum(live.points, 's4xx')).toBe(logs.s4);
    expect(sum(live.points, 's5xx')).toBe(logs.s5);
    // Every request of this test fell in one bucket (the clock stood still): its percentiles are the logs'.
    const busy = live.points.filter((p: { total: number }) => p.total > 0);
    expect(busy).toHaveLength(1);
    expect(bucketOf(busy[0].p50Ms)).toBe(bucketOf(logs.p50));
    expect(bucketOf(busy[0].p95Ms)).toBe(bucketOf(logs.p95));
    expect(busy[0].errorRate).toBe(logs.s5 / logs.total);

    // Two hours on, the rollup folds those minutes; the day's chart reads them from the rollup.
    t.clock.advance(2 * HOUR);
    await t.app.insights.run();
    const [state] = await t.deps.sql`select rolled_until from logs.rollup_state`;
    expect(new Date(state!.rolled_until).getTime()).toBeGreaterThan(new Date(live.to).getTime());
    const folded = await insights('traffic', '?range=day');
    expect(folded.points).toHaveLength(144);
    const dayLogs = await fromLogs('requests', folded.from, folded.to);
    expect(sum(folded.points, 'total')).toBe(dayLogs.total);
    expect(sum(folded.points, 's4xx')).toBe(dayLogs.s4);
    const foldedBusy = folded.points.filter((p: { total: number }) => p.total > 0);
    expect(foldedBusy.map((p: { p95Ms: number }) => bucketOf(p.p95Ms))).toContain(bucketOf(logs.p95));
    // Folding again adds nothing (the mark moved on).
    await t.app.insights.run();
    expect(sum((await insights('traffic', '?range=day')).points, 'total')).toBe(
      (await fromLogs('requests', folded.from, folded.to)).total,
    );
  });

  it('refuses an unknown range with a 400 saying which ranges exist', async () => {
    const res = await t.request({ method: 'GET', url: '/api/insights/traffic?range=year', headers: admin() });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.message).toContain('range: range must be hour, day or week');
  });
});

describe('functions', () => {
  it("counts each function's invocations, errors and p95 as the logs hold them, and one function alone", async () => {
    for (const [status, ms] of [
      [200, 3],
      [200, 5],
      [200, 40],
      [500, 120],
    ] as const) {
      invocation('resize', status, ms);
    }
    invocation('hello', 200, 1);
    // A function's own output line is no invocation.
    t.app.logs!.recordFunctionOutput({ slug: 'hello', level: 'info', message: 'hi', requestId: null });
    await t.app.logs!.flush();

    const all = await insights('functions', '?range=hour');
    const logs = await fromLogs('functions', all.from, all.to);
    expect(sum(all.points, 'total')).toBe(logs.total);
    expect(logs.total).toBe(5);
    expect(all.functions).toEqual([
      { slug: 'resize', invocations: 4, errors: 1, p95Ms: expect.any(Number) },
      { slug: 'hello', invocations: 1, errors: 0, p95Ms: expect.any(Number) },
    ]);
    const resizeLogs = await fromLogs('functions', all.from, all.to, 'resize');
    expect(bucketOf(all.functions[0].p95Ms)).toBe(bucketOf(resizeLogs.p95));

    const one = await insights('functions', '?range=hour&slug=resize');
    expect(one.slug).toBe('resize');
    expect(sum(one.points, 'total')).toBe(4);
    expect(sum(one.points, 's5xx')).toBe(1);
  });
});

describe('auth and sizes', () => {
  it('counts sign-ups and sign-ins as auth holds them', async () => {
    const before = await insights('auth', '?range=day');
    const alice = await t.signUp();
    await t.signUp();
    const signIn = await t.request({
      method: 'POST',
      url: '/api/auth/sessions',
      payload: { email: alice.email, password: alice.password },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const after = await insights('auth', '?range=day');
    expect(sum(after.points, 'signUps') - sum(before.points, 'signUps')).toBe(2);
    // Sign-up with a session, and one password sign-in: one session each.
    expect(sum(after.points, 'signIns') - sum(before.points, 'signIns')).toBe(3);
  });

  it('samples database and storage bytes each minute, and sizes each bucket', async () => {
    await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'charts', isPublic: false },
    });
    const boundary = 'plinthinsights';
    const put = await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/charts/objects/a.txt',
      headers: { ...admin(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(1234)}\r\n--${boundary}--\r\n`,
      ),
    });
    expect(put.statusCode, put.body).toBe(200);
    await t.app.insights.run();
    const sizes = await insights('sizes', '?range=hour');
    const sampled = sizes.points.filter((p: { databaseBytes: number | null }) => p.databaseBytes !== null);
    const [stored] = await t.deps.sql<
      { bytes: number }[]
    >`select coalesce(sum(size), 0)::float8 as bytes from storage.objects`;
    expect(sampled.at(-1).storageBytes).toBe(stored!.bytes);
    expect(sampled.at(-1).databaseBytes).toBeGreaterThan(1_000_000);
    expect(sizes.buckets).toContainEqual({ bucket: 'charts', objects: 1, bytes: 1234 });
  });

  it("shows each public table's rows, size and index use", async () => {
    await t.deps.sql.unsafe(`create table public.insight_notes (id serial primary key, body text);
      insert into public.insight_notes (body) select 'note ' || g from generate_series(1, 500) g;
      analyze public.insight_notes;`);
    await t.deps.sql`select body from public.insight_notes where id = 7`;
    const { tables } = await insights('tables');
    const notes = tables.find((x: { table: string }) => x.table === 'insight_notes');
    expect(notes.rows).toBe(500);
    expect(notes.bytes).toBeGreaterThan(8192);
    expect(notes.indexes).toEqual([
      { name: 'insight_notes_pkey', scans: expect.any(Number), bytes: expect.any(Number) },
    ]);
  });
});
