// Schedule targets under the outbound address policy (the one webhooks and functions use): any
// public http(s) URL may be scheduled (as the reference allows), with ${{secrets.X}} header
// templates; loopback, private, link-local and other reserved addresses are refused when saved
// (400 naming functionUrl, nothing stored) unless OUTBOUND_ALLOWED_ORIGINS lists the origin; a
// name that resolves to loopback is refused when the run fires, nothing reaching the receiver; a
// redirect is never followed. Only loopback gets traffic: an allow-listed receiver stands in for
// an external site.
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let baseUrl = '';
const secretRef = (key: string) => `\${{secrets.${key}}}`;

interface Receiver {
  server: HttpServer;
  port: number;
  hits: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
}

/** A loopback HTTP receiver; `redirectTo` makes it answer 302 to that URL. */
async function startReceiver(redirectTo?: () => string): Promise<Receiver> {
  const hits: Receiver['hits'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (redirectTo) res.writeHead(302, { location: redirectTo() }).end();
      else res.end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

/** Stands in for an external site: its origin is in OUTBOUND_ALLOWED_ORIGINS. */
let allowed: Receiver;
/** A service on the server's own network that nobody allowed. */
let internal: Receiver;
/** Allow-listed too, but redirects to the internal one. */
let redirecting: Receiver;

beforeAll(async () => {
  allowed = await startReceiver();
  internal = await startReceiver();
  redirecting = await startReceiver(() => `http://127.0.0.1:${internal.port}/admin`);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: {
      API_BASE_URL: baseUrl,
      SCHEDULES_POLL_MS: '0',
      OUTBOUND_ALLOWED_ORIGINS: `http://127.0.0.1:${allowed.port},http://127.0.0.1:${redirecting.port}`,
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  await asAdmin('POST', '/api/secrets', { key: 'HOOK_TOKEN', value: 'hook-secret-value' });
});
afterAll(async () => {
  await t?.close();
  for (const r of [allowed, internal, redirecting]) await new Promise((resolve) => r?.server.close(resolve));
});

const asAdmin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.request({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload === undefined ? {} : { payload }) });

const schedule = (functionUrl: string, extra: Record<string, unknown> = {}) =>
  asAdmin('POST', '/api/schedules', { name: 'target', cronSchedule: '0 3 * * *', functionUrl, ...extra });

describe('external URLs are scheduled', () => {
  it('saves a public https URL as given (not rewritten to a function), with its header template', async () => {
    const created = await schedule('https://hooks.example.com/cron/nightly?team=7', {
      headers: { Authorization: `Bearer ${secretRef('HOOK_TOKEN')}` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const read = await asAdmin('GET', `/api/schedules/${created.json.id}`);
    expect(read.json).toMatchObject({
      functionUrl: 'https://hooks.example.com/cron/nightly?team=7',
      functionSlug: null,
      headers: { Authorization: `Bearer ${secretRef('HOOK_TOKEN')}` },
    });
  });

  it('runs an allowed URL: method, JSON body and the secret resolved in the header reach it', async () => {
    const created = await schedule(`http://127.0.0.1:${allowed.port}/cron?x=1`, {
      httpMethod: 'PUT',
      body: { job: 'nightly' },
      headers: { Authorization: `Bearer ${secretRef('HOOK_TOKEN')}`, 'X-Plinth-Runtime-Token': 'forged' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.json).toMatchObject({ status: 'success', statusCode: 200, excerpt: 'received' });
    expect(allowed.hits).toHaveLength(1);
    expect(allowed.hits[0]).toMatchObject({ method: 'PUT', url: '/cron?x=1', body: '{"job":"nightly"}' });
    expect(allowed.hits[0]!.headers.authorization).toBe('Bearer hook-secret-value');
    expect(allowed.hits[0]!.headers['x-plinth-runtime-token']).toBeUndefined();
    // The template is what is stored and shown, never the value.
    expect(JSON.stringify((await asAdmin('GET', `/api/schedules/${created.json.id}`)).json)).not.toContain(
      'hook-secret-value',
    );
  });

  it('still refuses a header naming a secret that does not exist (404, nothing stored)', async () => {
    const before = (await asAdmin('GET', '/api/schedules')).json.length;
    const res = await schedule('https://hooks.example.com/x', { headers: { 'X-Key': secretRef('NOPE') } });
    expect(res.statusCode).toBe(404);
    expect(res.json).toMatchObject({ error: 'SECRET_NOT_FOUND', nextActions: expect.any(String) });
    expect((await asAdmin('GET', '/api/schedules')).json).toHaveLength(before);
  });
});

describe('private and reserved addresses are refused when saved', () => {
  const refused: [string, string][] = [
    ['IPv4 loopback', 'http://127.0.0.1:9/x'],
    ['another loopback address', 'http://127.1.2.3/x'],
    ['IPv6 loopback', 'http://[::1]:9/x'],
    ['the cloud metadata address (link-local)', 'http://169.254.169.254/latest/meta-data/'],
    ['10.0.0.0/8', 'http://10.1.2.3/x'],
    ['192.168.0.0/16', 'https://192.168.1.1/x'],
    ['172.16.0.0/12', 'http://172.20.0.5/x'],
    ['shared address space (CGNAT)', 'http://100.64.0.1/x'],
    ['the unspecified address', 'http://0.0.0.0:9/x'],
    ['IPv6 link-local', 'http://[fe80::1]/x'],
    ['IPv6 unique local', 'http://[fd00::1]/x'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/x'],
    ['loopback written as one decimal number', 'http://2130706433/x'],
    ['loopback written in hex', 'http://0x7f.1/x'],
    ['a loopback port nobody allowed', 'http://127.0.0.1:PORT/x'],
  ];
  it.each(refused)('%s: 400 naming functionUrl with a fix, nothing stored', async (_label, raw) => {
    const url = raw.replace('PORT', String(internal.port));
    const before = (await asAdmin('GET', '/api/schedules')).json.length;
    const res = await schedule(url);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      statusCode: 400,
      nextActions: expect.stringContaining('OUTBOUND_ALLOWED_ORIGINS'),
    });
    expect(res.json.message).toMatch(/^functionUrl: .* is a private or reserved address\.$/);
    expect((await asAdmin('GET', '/api/schedules')).json).toHaveLength(before);
  });

  it('refuses the same when an update moves a schedule there, and leaves it as it was', async () => {
    const created = await schedule('https://hooks.example.com/keep');
    const res = await asAdmin('PATCH', `/api/schedules/${created.json.id}`, {
      functionUrl: 'http://169.254.169.254/latest/meta-data/',
    });
    expect(res.statusCode).toBe(400);
    expect((await asAdmin('GET', `/api/schedules/${created.json.id}`)).json.functionUrl).toBe(
      'https://hooks.example.com/keep',
    );
  });

  it('refuses schemes other than http(s) and user:password@, without echoing the password', async () => {
    expect((await schedule('ftp://hooks.example.com/x')).statusCode).toBe(400);
    const url = `${baseUrl.replace('http://', 'http://admin:hunter2@')}/api/health`;
    const res = await schedule(url);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect(res.json.message).toMatch(/^functionUrl: .*user:password@/);
    expect(res.body).not.toContain('hunter2');
  });
});

describe('when the run fires', () => {
  it('refuses a name that resolves to loopback: failed, with the reason, nothing sent', async () => {
    // Saved (a name is only resolved when called: its answer may change in between).
    const created = await schedule(`http://localhost:${internal.port}/hook`, { httpMethod: 'GET' });
    expect(created.statusCode, created.body).toBe(201);
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json).toMatchObject({ status: 'failed', success: false });
    expect(run.json.message).toMatch(
      /^Refused by the outbound address policy: localhost resolves to [^ ]+, a private or reserved address\.$/,
    );
    expect(internal.hits).toHaveLength(0);
  });

  it('refuses a stored URL that is no longer allowed (written to the table directly)', async () => {
    const created = await schedule(`${baseUrl}/api/health`, { httpMethod: 'GET' });
    await t.deps
      .sql`update schedules.schedules set function_url = ${`http://127.0.0.1:${internal.port}/x`} where id = ${created.json.id}`;
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.json).toMatchObject({ status: 'failed' });
    expect(run.json.message).toMatch(/^Refused by the outbound address policy: .*private or reserved address/);
    expect(internal.hits).toHaveLength(0);
  });

  it('never follows a redirect (to an internal address or anywhere): the 302 is the outcome', async () => {
    const created = await schedule(`http://127.0.0.1:${redirecting.port}/go`, { httpMethod: 'GET' });
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.json).toMatchObject({ status: 'failed', statusCode: 302 });
    expect(redirecting.hits).toHaveLength(1);
    expect(internal.hits).toHaveLength(0);
  });

  it('still runs a URL of this API (its own origin is allowed)', async () => {
    const created = await schedule(`${baseUrl}/api/health`, { httpMethod: 'GET' });
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.json).toMatchObject({ status: 'success', statusCode: 200 });
  });
});
