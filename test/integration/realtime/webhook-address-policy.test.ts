// Channel webhooks under the outbound address policy: URLs that are not http(s), carry
// user:password@, or name a private/loopback address literally are refused when saved (400); a
// name resolving to loopback is refused when delivered, with nothing reaching the receiver; an
// origin in OUTBOUND_ALLOWED_ORIGINS is delivered. Only loopback receivers ever get traffic.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookWorker, type WebhookWorker } from '../../../src/modules/realtime/index.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let worker: WebhookWorker;
/** Its origin is allow-listed. */
let allowed: HttpServer;
/** Never allow-listed: no request may reach it. */
let forbidden: HttpServer;
const hits = { allowed: 0, forbidden: 0 };

const listen = async (onHit: () => void) => {
  const server = createServer((req, res) => {
    onHit();
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
};
const portOf = (server: HttpServer) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  allowed = await listen(() => hits.allowed++);
  forbidden = await listen(() => hits.forbidden++);
  t = await startTestApp({
    env: { REALTIME_WEBHOOK_POLL_MS: '0', OUTBOUND_ALLOWED_ORIGINS: `http://127.0.0.1:${portOf(allowed)}` },
  });
  worker = createWebhookWorker(t.deps);
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => allowed?.close(resolve));
  await new Promise((resolve) => forbidden?.close(resolve));
});
beforeEach(() => {
  hits.allowed = 0;
  hits.forbidden = 0;
});

const admin = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
  t.request({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload === undefined ? {} : { payload }) });

async function publish(channel: string): Promise<string> {
  const [row] = await t.deps.sql`select realtime.publish(${channel}, 'ping', '{}'::jsonb) as id`;
  return row!.id as string;
}

async function deliveriesOf(messageId: string) {
  return (await admin('GET', `/api/realtime/webhook-deliveries?messageId=${messageId}`)).json as any[];
}

describe('webhook URLs when saved', () => {
  it.each([
    ['file:///etc/passwd', /Only http and https/],
    ['ftp://hooks.example.com/x', /Only http and https/],
    ['https://user:pass@hooks.example.com/x', /user:password@/],
    ['http://127.0.0.1:1/hook', /private or reserved/],
    ['http://10.0.0.1/hook', /private or reserved/],
    ['http://169.254.169.254/latest/meta-data', /private or reserved/],
    ['http://[::1]:1/hook', /private or reserved/],
    ['http://[::ffff:127.0.0.1]:1/hook', /private or reserved/],
    ['http://0.0.0.0:1/hook', /private or reserved/],
  ])('refuses %s with a 400 naming the field and what to do', async (url, why) => {
    const res = await admin('POST', '/api/realtime/channels', { pattern: 'refused', webhookUrls: [url] });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    expect(res.json.message).toMatch(/^webhookUrls\[0\]: /);
    expect(res.json.message).toMatch(why);
    if (/private/.test(String(why))) expect(res.json.nextActions).toContain('OUTBOUND_ALLOWED_ORIGINS');
    expect(res.json.message).not.toContain('pass@');
  });

  it('refuses the same on update, and keeps what was saved', async () => {
    const created = await admin('POST', '/api/realtime/channels', {
      pattern: 'kept',
      webhookUrls: ['https://hooks.example.com/kept'],
    });
    expect(created.statusCode).toBe(201);
    const res = await admin('PUT', `/api/realtime/channels/${created.json.id}`, {
      webhookUrls: ['https://hooks.example.com/ok', `http://127.0.0.1:${portOf(forbidden)}/hook`],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.message).toMatch(/^webhookUrls\[1\]: /);
    const now = await admin('GET', `/api/realtime/channels/${created.json.id}`);
    expect(now.json.webhookUrls).toEqual(['https://hooks.example.com/kept']);
  });

  it('accepts an allow-listed private origin', async () => {
    const res = await admin('POST', '/api/realtime/channels', {
      pattern: 'allowed',
      webhookUrls: [`http://127.0.0.1:${portOf(allowed)}/hook`],
    });
    expect(res.statusCode).toBe(201);
  });
});

describe('webhook deliveries', () => {
  it('delivers to an allow-listed origin', async () => {
    const id = await publish('allowed');
    expect(await worker.tick()).toEqual({ delivered: 1, failed: 0 });
    expect(hits.allowed).toBe(1);
    expect(await deliveriesOf(id)).toMatchObject([{ state: 'delivered', lastStatus: 200 }]);
  });

  it('refuses a name that resolves to loopback: failed for good, with the reason, nothing sent', async () => {
    // A name is not resolved when saved; the delivery resolves it under the policy.
    const created = await admin('POST', '/api/realtime/channels', {
      pattern: 'by-name',
      webhookUrls: [`http://localhost:${portOf(forbidden)}/hook`],
    });
    expect(created.statusCode).toBe(201);
    const id = await publish('by-name');
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 1 });
    expect(hits.forbidden).toBe(0);
    const [delivery] = await deliveriesOf(id);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 1, lastStatus: null });
    expect(delivery.lastError).toMatch(/^OutboundRefused: localhost resolves to .*private or reserved address/);
    t.clock.advance(60 * 60 * 1000);
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 0 }); // not retried
    expect(hits.forbidden).toBe(0);
  });

  it('refuses a private literal saved before the policy existed, nothing sent', async () => {
    const url = `http://127.0.0.1:${portOf(forbidden)}/hook`;
    await t.deps.sql`insert into realtime.channels (pattern, webhook_urls) values ('legacy', ${[url]})`;
    const id = await publish('legacy');
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 1 });
    expect(hits.forbidden).toBe(0);
    expect(await deliveriesOf(id)).toMatchObject([
      { state: 'failed', lastError: 'OutboundRefused: 127.0.0.1 is a private or reserved address.' },
    ]);
  });
});
