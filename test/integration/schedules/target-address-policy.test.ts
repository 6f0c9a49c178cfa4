// Schedule targets under the outbound address policy: a functionUrl with user:password@ is refused
// when saved (400), and a stored URL outside the allowed origins (API_BASE_URL's and
// OUTBOUND_ALLOWED_ORIGINS) whose name resolves to loopback is refused when the run fires, with
// the reason in the history and nothing reaching the receiver. Only loopback gets traffic.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let baseUrl = '';
let receiver: HttpServer;
let hits = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl, SCHEDULES_POLL_MS: '0' } });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const asAdmin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.request({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload === undefined ? {} : { payload }) });

describe('schedule targets and the outbound address policy', () => {
  it('refuses a functionUrl with user:password@ when saved, without echoing it', async () => {
    const url = `${baseUrl.replace('http://', 'http://admin:hunter2@')}/api/health`;
    const res = await asAdmin('POST', '/api/schedules', { name: 'creds', cronSchedule: '0 3 * * *', functionUrl: url });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect(res.json.message).toMatch(/^functionUrl: .*user:password@/);
    expect(res.body).not.toContain('hunter2');
  });

  it('refuses, when it fires, a stored URL whose name resolves to loopback: failed, nothing sent', async () => {
    const created = await asAdmin('POST', '/api/schedules', {
      name: 'moved',
      cronSchedule: '0 3 * * *',
      functionUrl: `${baseUrl}/api/health`,
      httpMethod: 'GET',
    });
    expect(created.statusCode, created.body).toBe(201);
    // Saved while API_BASE_URL named another origin (or written to the table directly).
    const elsewhere = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
    await t.deps.sql`update schedules.schedules set function_url = ${elsewhere} where id = ${created.json.id}`;
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(run.json)).toMatch(
      /Refused by the outbound address policy: localhost resolves to [^"]+, a private or reserved address/,
    );
    expect(hits).toBe(0);
  });

  it('still runs a URL of this API (its own origin is allowed)', async () => {
    const created = await asAdmin('POST', '/api/schedules', {
      name: 'own api',
      cronSchedule: '0 3 * * *',
      functionUrl: `${baseUrl}/api/health`,
      httpMethod: 'GET',
    });
    const run = await asAdmin('POST', `/api/schedules/${created.json.id}/run`);
    expect(run.json).toMatchObject({ status: 'success', statusCode: 200 });
  });
});
