// Logs and audit as an admin sees them through /api/logs: every request stored and searchable by
// each filter, newest first and paginated; admin writes in the audit trail with secret values
// redacted; server errors with their stack; the live tail; a full buffer dropping and counting
// instead of slowing requests; and retention dropping whole daily partitions (injected clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

const DAY = 86_400_000;
let t: TestApp;
let admin: Record<string, string>;

beforeAll(async () => {
  // Flushes happen when a test asks (the timer is too slow to fire during the file).
  t = await startTestApp({ env: { LOGS_FLUSH_INTERVAL_MS: '3600000' } });
  admin = { 'x-api-key': t.apiKey };
});
afterAll(() => t?.close());

const flush = () => t.app.logs!.flush();

async function search(query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await t.request({ method: 'GET', url: `/api/logs/search?${qs}`, headers: admin });
  expect([200, 206]).toContain(res.statusCode);
  return res;
}

describe('requests', () => {
  it('stores every request with its route pattern, status, caller and request id', async () => {
    const user = await t.signUp();
    const mine = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(user.accessToken),
    });
    const missing = await t.request({
      method: 'GET',
      url: '/api/database/records/no_such_table',
      headers: bearer(user.accessToken),
    });
    expect(missing.statusCode).toBe(404);
    await flush();

    const byRequest = await search({ request_id: String(mine.headers['x-request-id']) });
    expect(byRequest.json).toHaveLength(1);
    const [line] = byRequest.json;
    expect(line.source).toBe('requests');
    expect(line.body).toMatchObject({
      method: 'GET',
      route: '/api/auth/sessions/current',
      status: mine.statusCode,
      principal: 'user',
      userId: user.user.id,
      requestId: mine.headers['x-request-id'],
      level: 'info',
    });
    expect(line.body.ip).toBeTruthy();
    expect(line.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(line.eventMessage).toContain('GET /api/auth/sessions/current');

    const byUser = await search({ user_id: user.user.id });
    expect(byUser.json.map((l: any) => l.body.requestId)).toEqual([
      missing.headers['x-request-id'],
      mine.headers['x-request-id'],
    ]);
    const byStatus = await search({ status: 404, user_id: user.user.id });
    expect(byStatus.json.map((l: any) => l.body.route)).toEqual(['/api/database/records/:table']);
    const byLevel = await search({ level: 'warn', user_id: user.user.id });
    expect(byLevel.json).toHaveLength(1);
    const byText = await search({ q: 'SESSIONS/CURRENT', user_id: user.user.id });
    expect(byText.json).toHaveLength(1);
    const bySource = await search({ source: 'audit', user_id: user.user.id });
    expect(bySource.json).toEqual([]);
  });

  it('filters by time range on the injected clock', async () => {
    const from = t.clock.now();
    t.clock.advance(60_000);
    const inside = await t.request({ method: 'GET', url: '/api/health' });
    t.clock.advance(60_000);
    const to = t.clock.now();
    t.clock.advance(60_000);
    const after = await t.request({ method: 'GET', url: '/api/health' });
    await flush();
    const res = await search({ start_date: from.toISOString(), end_date: to.toISOString(), source: 'requests' });
    const ids = res.json.map((l: any) => l.body.requestId);
    expect(ids).toContain(inside.headers['x-request-id']);
    expect(ids).not.toContain(after.headers['x-request-id']);
  });

  it("leaves out the web console's own requests on request (exclude_console=true), other sources kept", async () => {
    t.clock.advance(60_000);
    const from = t.clock.now();
    const consoleCalls = await Promise.all(
      ['/', '/dashboard', '/dashboard/', '/dashboard/assets/nothing-here.js', '/dashboard/users'].map((url) =>
        t.request({ method: 'GET', url }),
      ),
    );
    const api = await t.request({ method: 'GET', url: '/api/health' });
    const missing = await t.request({ method: 'GET', url: '/dashboards' });
    await flush();
    const routesOf = (res: { json: any[] }) =>
      res.json.filter((l) => l.source === 'requests').map((l) => l.body.route as string | null);
    const range = { start_date: from.toISOString(), limit: 1000 };

    const all = await search(range);
    expect(routesOf(all)).toEqual(expect.arrayContaining(['/', '/dashboard', '/dashboard/*']));
    expect(routesOf(all).filter((r) => r === '/' || r?.startsWith('/dashboard'))).toHaveLength(consoleCalls.length);

    const without = await search({ ...range, exclude_console: 'true' });
    const ids = without.json.map((l: any) => l.body.requestId);
    expect(ids).toContain(api.headers['x-request-id']);
    // A path that only looks like the console's (no route: 404) stays.
    expect(ids).toContain(missing.headers['x-request-id']);
    expect(routesOf(without).filter((r) => r === '/' || r?.startsWith('/dashboard'))).toEqual([]);
    // Counts agree: the console's requests are exactly what was left out.
    const totalOf = (res: { headers: Record<string, unknown> }) =>
      Number(String(res.headers['content-range']).split('/')[1]);
    expect(totalOf(all) - totalOf(without)).toBe(consoleCalls.length);
    expect(totalOf(await search({ ...range, exclude_console: 'false' }))).toBe(totalOf(all));

    const bad = await t.request({ method: 'GET', url: '/api/logs/search?exclude_console=yes', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json.error).toBe('VALIDATION_ERROR');
    expect(bad.json.message).toContain('exclude_console');
    expect(bad.json.message).toContain('"true"|"false"');
  });

  it('pages newest first with Content-Range', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      const res = await t.request({ method: 'GET', url: '/api/health?page-test' });
      ids.push(String(res.headers['x-request-id']));
    }
    await flush();
    const newestFirst = [...ids].reverse();
    const first = await search({ q: 'page-test', limit: 2, offset: 0 });
    // The text filter searches the message (route pattern), so filter on the request ids instead.
    expect(first.json).toEqual([]);
    const all = await search({ source: 'requests', limit: 1000 });
    const pageIds = all.json.map((l: any) => l.body.requestId).filter((id: string) => ids.includes(id));
    expect(pageIds).toEqual(newestFirst);

    const page1 = await search({ source: 'requests', limit: 2, offset: 0 });
    expect(page1.statusCode).toBe(206);
    const total = Number(String(page1.headers['content-range']).split('/')[1]);
    expect(page1.headers['content-range']).toBe(`0-1/${total}`);
    const page2 = await search({ source: 'requests', limit: 2, offset: 2 });
    expect(page2.headers['content-range']).toBe(`2-3/${total}`);
    expect(page1.json.map((l: any) => l.body.requestId)).toEqual(newestFirst.slice(0, 2));
    expect(page2.json.map((l: any) => l.body.requestId)).toEqual(newestFirst.slice(2, 4));
  });

  it('answers the reference view of a source, oldest first, and accepts its source names', async () => {
    const res = await t.request({ method: 'GET', url: '/api/logs/insforge.logs?limit=3', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json.logs).toHaveLength(3);
    expect(res.json.total).toBeGreaterThanOrEqual(3);
    const times = res.json.logs.map((l: any) => Date.parse(l.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const unknown = await t.request({ method: 'GET', url: '/api/logs/postgres.logs', headers: admin });
    expect(unknown.json).toEqual({ logs: [], total: 0 });
    const bad = await t.request({ method: 'GET', url: '/api/logs/search?source=nope', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json.nextActions).toContain('requests');
  });
});

describe('audit', () => {
  it('records an admin write with its actor, action and target, never the secret value', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/secrets',
      headers: admin,
      payload: { key: 'AUDITED_SECRET', value: 'sk_live_do_not_store_me' },
    });
    expect(created.statusCode).toBeLessThan(300);
    const token = await t.adminToken();
    const updated = await t.request({
      method: 'PUT',
      url: '/api/secrets/AUDITED_SECRET',
      headers: bearer(token),
      payload: { value: 'sk_live_second_value' },
    });
    expect(updated.statusCode).toBeLessThan(300);
    await flush();

    const res = await t.request({ method: 'GET', url: '/api/logs/audits?module=SECRETS', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-range']).toBe('0-1/2');
    const [put, post] = res.json;
    expect(post).toMatchObject({
      actor: 'api-key',
      action: 'POST /api/secrets',
      module: 'SECRETS',
      requestId: created.headers['x-request-id'],
      details: { body: { key: 'AUDITED_SECRET', value: '[redacted]' } },
    });
    expect(post.ipAddress).toBeTruthy();
    expect(put).toMatchObject({
      action: 'PUT /api/secrets/:key',
      details: { target: { key: 'AUDITED_SECRET' }, body: { value: '[redacted]' } },
    });
    expect(put.actor).not.toBe('api-key');
    const byActor = await t.request({ method: 'GET', url: `/api/logs/audits?actor=${put.actor}`, headers: admin });
    expect(byActor.json.map((a: any) => a.id)).toContain(put.id);

    const everything = await search({ q: 'sk_live', limit: 1000 });
    expect(everything.json).toEqual([]);
    const audits = await t.request({ method: 'GET', url: '/api/logs/audits?limit=0', headers: admin });
    expect(audits.json.length).toBeGreaterThanOrEqual(2);
    expect(audits.body).not.toContain('sk_live');
  });

  it('summarises the audit trail per module and lists the reference source names', async () => {
    const res = await t.request({ method: 'GET', url: '/api/logs/audits/stats?days=1', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json.actionsByModule.SECRETS).toBe(2);
    expect(res.json.totalLogs).toBe(
      Object.values(res.json.actionsByModule as Record<string, number>).reduce((a, b) => a + b, 0),
    );
    expect(res.json.uniqueModules).toBe(Object.keys(res.json.actionsByModule).length);
    expect(res.json.uniqueActors).toBe(2);
    expect(res.json.recentActivity[0]).toMatchObject({ module: 'SECRETS', action: 'PUT /api/secrets/:key' });
    t.clock.advance(2 * DAY);
    const later = await t.request({ method: 'GET', url: '/api/logs/audits/stats?days=1', headers: admin });
    expect(later.json).toEqual({
      totalLogs: 0,
      uniqueActors: 0,
      uniqueModules: 0,
      actionsByModule: {},
      recentActivity: [],
    });
    t.clock.advance(-2 * DAY);

    const sources = await t.request({ method: 'GET', url: '/api/logs/sources', headers: admin });
    expect(sources.json).toEqual([
      { id: '1', name: 'insforge.logs', token: 'insforge.logs.jsonl' },
      { id: '2', name: 'postgREST.logs', token: 'postgREST.logs.jsonl' },
      { id: '3', name: 'postgres.logs', token: 'postgres.logs.jsonl' },
      { id: '4', name: 'function.logs', token: 'function.logs.jsonl' },
    ]);
  });

  it('does not audit reads or refused writes', async () => {
    await t.request({ method: 'GET', url: '/api/secrets', headers: admin });
    await t.request({ method: 'POST', url: '/api/secrets', headers: admin, payload: { key: 'bad key!' } });
    await flush();
    const res = await t.request({
      method: 'GET',
      url: '/api/logs/audits?action=GET%20%2Fapi%2Fsecrets',
      headers: admin,
    });
    expect(res.json).toEqual([]);
    const all = await t.request({ method: 'GET', url: '/api/logs/audits?module=SECRETS', headers: admin });
    expect(all.json).toHaveLength(2);
  });
});

describe('errors and functions', () => {
  it('logs a server error with its message and stack, and the invocation by slug', async () => {
    const deployed = await t.request({
      method: 'POST',
      url: '/api/functions',
      headers: admin,
      payload: { name: 'logged', slug: 'logged', code: 'export default () => new Response("ok");', verifyJwt: false },
    });
    expect(deployed.statusCode).toBeLessThan(300);
    // The runtime is not started in this file: the invocation fails with a 502.
    const invoked = await t.request({ method: 'POST', url: '/functions/logged', payload: {} });
    expect(invoked.statusCode).toBe(502);
    await flush();

    const errors = await search({ source: 'errors', request_id: String(invoked.headers['x-request-id']) });
    expect(errors.json).toHaveLength(1);
    expect(errors.json[0].body).toMatchObject({
      level: 'error',
      status: 502,
      message: 'The function runtime is not reachable.',
    });
    expect(errors.json[0].body.details.stack).toContain('AppError');
    expect(errors.json[0].eventMessage).toContain('error - The function runtime is not reachable.');

    const fns = await search({ source: 'functions', slug: 'logged' });
    expect(fns.json).toHaveLength(1);
    expect(fns.json[0].body).toMatchObject({ status: 502, slug: 'logged', method: 'POST', level: 'error' });
    const legacy = await t.request({ method: 'GET', url: '/api/logs/function.logs', headers: admin });
    expect(legacy.json.logs.map((l: any) => l.body.slug)).toContain('logged');
  });
});

describe('live tail', () => {
  it('streams each new entry to a subscriber as a server-sent event', async () => {
    const port = await freePort();
    await t.app.listen({ port, host: '127.0.0.1' });
    const controller = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/api/logs/stream?source=requests`, {
      headers: admin,
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    text += decoder.decode((await reader.read()).value);
    expect(text).toContain(': tailing');

    const probe = await t.request({ method: 'GET', url: '/api/health?tail-probe' });
    const id = String(probe.headers['x-request-id']);
    while (!text.includes(id)) text += decoder.decode((await reader.read()).value);
    const event = text.split('\n\n').find((e) => e.includes(id))!;
    expect(event).toContain('event: log');
    const data = JSON.parse(
      event
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    expect(data).toMatchObject({ source: 'requests', body: { requestId: id, route: '/api/health', status: 200 } });
    controller.abort();
  });
});

describe('retention', () => {
  it('keeps the settings per kind, and drops whole daily partitions past them', async () => {
    const initial = await t.request({ method: 'GET', url: '/api/logs/retention', headers: admin });
    expect(initial.json).toEqual({ requests: 7, functions: 14, audit: 90, errors: 30 });
    const old = await t.request({ method: 'GET', url: '/api/health?old' });
    await flush();

    t.clock.advance(3 * DAY);
    const fresh = await t.request({ method: 'GET', url: '/api/health?fresh' });
    await flush();
    expect((await search({ request_id: String(old.headers['x-request-id']) })).json).toHaveLength(1);

    const changed = await t.request({
      method: 'PATCH',
      url: '/api/logs/retention',
      headers: admin,
      payload: { requests: 1 },
    });
    expect(changed.json).toEqual({ requests: 1, functions: 14, audit: 90, errors: 30 });
    const report = await t.app.logs!.runMaintenance();
    expect(report.dropped.some((name) => name.startsWith('entries_requests_'))).toBe(true);
    expect(report.dropped.some((name) => !name.startsWith('entries_requests_'))).toBe(false);

    expect((await search({ request_id: String(old.headers['x-request-id']) })).json).toEqual([]);
    expect((await search({ request_id: String(fresh.headers['x-request-id']) })).json).toHaveLength(1);
    // Other kinds keep their older entries (the audit trail above).
    const audits = await t.request({ method: 'GET', url: '/api/logs/audits?module=SECRETS', headers: admin });
    expect(audits.json.length).toBeGreaterThan(0);

    const invalid = await t.request({
      method: 'PATCH',
      url: '/api/logs/retention',
      headers: admin,
      payload: { requests: 0 },
    });
    expect(invalid.statusCode).toBe(400);
  });
});

describe('a full buffer', () => {
  it('drops and counts entries instead of slowing requests, and reports the drops', async () => {
    const small = await startTestApp({
      env: { LOGS_BUFFER_MAX: '5', LOGS_BATCH_SIZE: '1000', LOGS_FLUSH_INTERVAL_MS: '3600000' },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => small.request({ method: 'GET', url: '/api/health' })),
      );
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      expect(small.app.logs!.droppedCount()).toBe(15);
      const stats = await small.request({
        method: 'GET',
        url: '/api/logs/writer',
        headers: { 'x-api-key': small.apiKey },
      });
      expect(stats.json).toEqual({ droppedEntries: 15 });
      const metrics = await small.request({ method: 'GET', url: '/metrics', headers: { 'x-api-key': small.apiKey } });
      expect(metrics.body).toMatch(/^plinth_log_dropped_total 1[5-9]$/m);

      await small.app.logs!.flush();
      const kept = await small.request({
        method: 'GET',
        url: '/api/logs/search?source=requests',
        headers: { 'x-api-key': small.apiKey },
      });
      expect(kept.json).toHaveLength(5);
    } finally {
      await small.close();
    }
  });
});

describe('text search', () => {
  it('matches text in any letter case, in the message and in the details', async () => {
    const deployed = await t.request({
      method: 'POST',
      url: '/api/functions',
      headers: admin,
      payload: {
        name: 'Case Probe',
        slug: 'case-probe',
        code: 'export default () => new Response("ok");\n',
        verifyJwt: false,
      },
    });
    expect(deployed.statusCode).toBeLessThan(300);
    await flush();
    const id = deployed.headers['x-request-id'];
    // "Case Probe" is only in the audit entry's details (the body); the route is in every message.
    for (const q of ['case probe', 'CASE PROBE', 'cAsE pRoBe']) {
      const found = await search({ q, source: 'audit' });
      expect(found.json.map((l: any) => l.body.requestId)).toEqual([id]);
    }
    const byRoute = await search({ q: 'post /API/FUNCTIONS', request_id: String(id) });
    expect(byRoute.json).toHaveLength(2);
  });

  // Issue 36: the request id is the first thing a user pastes (from an error or X-Request-Id).
  it('finds a request by its id, whole, in part or in another letter case, and a user by theirs', async () => {
    const user = await t.signUp();
    const generated = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(user.accessToken),
    });
    const chosen = await t.request({
      method: 'GET',
      url: '/api/database/records/no_such_table',
      headers: { ...bearer(user.accessToken), 'x-request-id': 'Checkout-7f3a.retry:2' },
    });
    const other = await t.request({ method: 'GET', url: '/api/health' });
    await flush();
    const id = String(generated.headers['x-request-id']);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const ids = async (q: string) => (await search({ q })).json.map((l: any) => l.body.requestId);
    expect(await ids(id)).toEqual([id]);
    expect(await ids(id.toUpperCase())).toEqual([id]);
    expect(await ids(id.slice(0, 13))).toEqual([id]);
    expect(await ids('checkout-7F3A.RETRY:2')).toEqual(['Checkout-7f3a.retry:2']);
    expect(await ids(String(other.headers['x-request-id']))).toEqual([other.headers['x-request-id']]);
    // A user id finds that user's requests (newest first), and the sign-up that made them.
    const byUser = await ids(user.user.id);
    expect(byUser.slice(0, 2)).toEqual(['Checkout-7f3a.retry:2', id]);
    expect(byUser).not.toContain(other.headers['x-request-id']);
    // The other filters still narrow it.
    expect((await search({ q: id, source: 'audit' })).json).toEqual([]);
    expect(chosen.statusCode).toBe(404);
  });
});

describe('storage format', () => {
  it('keeps tabs, line breaks, backslashes and non-ASCII text of an entry exactly', async () => {
    const code = 'export default () => new Response("tab\there\\n\r\nline é ☃ 𝄞 \\N");\n';
    const deployed = await t.request({
      method: 'POST',
      url: '/api/functions',
      headers: admin,
      payload: { name: 'escaped', slug: 'escaped-format', code, verifyJwt: false },
    });
    expect(deployed.statusCode).toBeLessThan(300);
    await flush();
    const res = await t.request({
      method: 'GET',
      url: `/api/logs/audits?limit=0`,
      headers: admin,
    });
    const audit = res.json.find((a: any) => a.details?.body?.slug === 'escaped-format');
    expect(audit.details.body.code).toBe(code);
    const found = await search({ q: '☃ 𝄞' });
    expect(found.json.map((l: any) => l.body.requestId)).toEqual([deployed.headers['x-request-id']]);
  });

  it('stores a NUL a caller put in a path without failing the other entries of its batch', async () => {
    // The slug is decoded from the path: %00 is a NUL, which PostgreSQL text refuses.
    const withNul = await t.request({ method: 'GET', url: '/functions/nul%00slug' });
    const plain = await t.request({ method: 'GET', url: '/api/auth/sessions/current' });
    await flush();
    for (const res of [withNul, plain]) {
      expect((await search({ request_id: String(res.headers['x-request-id']) })).json).toHaveLength(1);
    }
    const [line] = (await search({ request_id: String(withNul.headers['x-request-id']) })).json;
    expect(line.body.slug).toBe('nulslug');
    expect(t.app.logs!.droppedCount()).toBe(0);
  });
});
