// Channel webhooks against a real loopback receiver: every message on a channel with webhook URLs
// is POSTed signed (HMAC-SHA256 over the timestamp, message id, channel, event, sender and body,
// verified here with the signing secret read through the secrets API, as a receiver would, so a
// tampered channel, event or timestamp is caught), retried with backoff after a receiver outage (the test's clock
// is moved past the backoff; no sleeps), delivered once when two servers tick at the same time,
// logged, and retried on an admin's request. The receivers' origins are in OUTBOUND_ALLOWED_ORIGINS.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server as HttpServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookWorker, type WebhookWorker } from '../../../src/modules/realtime/index.js';
import { pollUntil } from '../../harness/server-process.js';
import { type Server, startTestApp, type TestApp } from '../../harness/test-app.js';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let t: TestApp;
let other: Server;
let receiver: HttpServer;
let receiverUrl: string;
let deadUrl: string;
/** A receiver as an app writes it (the signature tests set how it answers). */
let verifying: HttpServer;
let verifyingUrl: string;
let onVerifying: RequestListener = (_req, res) => res.end();
let worker: WebhookWorker;
let otherWorker: WebhookWorker;
const received: Received[] = [];
/** Status codes the receiver answers with next (then 200). */
const answers: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // A port nothing listens on, for the unreachable receiver.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
  await new Promise((resolve) => closed.close(resolve));
  // The verifying receiver of the signature tests listens from the start, so its origin is known.
  verifying = createServer((req, res) => onVerifying(req, res));
  await new Promise<void>((resolve) => verifying.listen(0, '127.0.0.1', resolve));
  verifyingUrl = `http://127.0.0.1:${(verifying.address() as AddressInfo).port}/verified`;
  // Loopback receivers are private addresses: the operator allows their origins.
  const origins = [receiverUrl, deadUrl, verifyingUrl].map((url) => new URL(url).origin);
  t = await startTestApp({
    env: { REALTIME_WEBHOOK_POLL_MS: '0', OUTBOUND_ALLOWED_ORIGINS: origins.join(',') },
  });
  other = await t.startAnotherServer();
  const res = await admin({
    method: 'POST',
    url: '/api/realtime/channels',
    payload: { pattern: 'orders:%', webhookUrls: [receiverUrl] },
  });
  expect(res.statusCode).toBe(201);
  worker = createWebhookWorker(t.deps);
  otherWorker = createWebhookWorker(other.deps);
});
afterAll(async () => {
  await other?.close();
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await new Promise((resolve) => verifying?.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  answers.length = 0;
});

/** The secret, read as an admin reads it. */
async function signingSecretValue(): Promise<string> {
  const secret = await admin({ method: 'GET', url: '/api/secrets/REALTIME_WEBHOOK_SIGNING_SECRET' });
  expect(secret.statusCode).toBe(200);
  return secret.json.value as string;
}

/** A receiver's check, as documented: v2 = HMAC-SHA256 over the signed headers' values and the body, one per line. */
function verifySignature(secret: string, hit: Received): boolean {
  const h = (name: string) => String(hit.headers[name] ?? '');
  const signed = [
    h('x-plinth-timestamp'),
    h('x-svc-message-id'),
    h('x-svc-channel'),
    h('x-svc-event'),
    h('x-svc-sender-type'),
    h('x-svc-sender-id'),
    hit.body,
  ].join('\n');
  const expected = `v2=${createHmac('sha256', secret).update(signed).digest('hex')}`;
  const given = h('x-plinth-signature');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

const admin = (options: Parameters<TestApp['request']>[0]) =>
  t.request({ ...options, headers: { ...options.headers, 'x-api-key': t.apiKey } });

async function publish(channel: string, payload: Record<string, unknown>): Promise<string> {
  const [row] = await t.deps
    .sql`select realtime.publish(${channel}, 'order.updated', ${t.deps.sql.json(payload as never)}) as id`;
  return row!.id as string;
}

async function deliveriesOf(messageId: string) {
  const res = await admin({ method: 'GET', url: `/api/realtime/webhook-deliveries?messageId=${messageId}` });
  expect(res.statusCode).toBe(200);
  return res.json as any[];
}

describe('channel webhooks', () => {
  it('POSTs each message signed, with a timestamp, and logs the delivery', async () => {
    const id = await publish('orders:1', { status: 'shipped' });
    // Queued in PostgreSQL with the message: a server started later (this fresh worker) sends it.
    expect(await deliveriesOf(id)).toMatchObject([{ state: 'pending', attempts: 0, lastStatus: null }]);
    expect(await createWebhookWorker(other.deps).tick()).toEqual({ delivered: 1, failed: 0 });
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(JSON.parse(hit!.body)).toEqual({ status: 'shipped' });
    expect(hit!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-svc-event': 'order.updated',
      'x-svc-channel': 'orders:1',
      'x-svc-message-id': id,
    });
    const timestamp = hit!.headers['x-plinth-timestamp'] as string;
    expect(Number(timestamp)).toBe(Math.floor(t.clock.now().getTime() / 1000));
    expect(hit!.headers).toMatchObject({ 'x-svc-sender-type': 'system', 'x-svc-sender-id': '' });
    expect(verifySignature(await signingSecretValue(), hit!)).toBe(true);
    expect(await deliveriesOf(id)).toMatchObject([
      { messageId: id, url: receiverUrl, state: 'delivered', attempts: 1, lastStatus: 200, lastError: null },
    ]);
    const messages = await admin({ method: 'GET', url: '/api/realtime/messages?eventName=order.updated' });
    expect(messages.json.find((m: any) => m.id === id)).toMatchObject({ whAudienceCount: 1, whDeliveredCount: 1 });
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 0 });
  });

  it('retries after a receiver outage once the backoff has passed', async () => {
    answers.push(500, 503);
    const id = await publish('orders:2', { status: 'packed' });
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 1 });
    expect(await deliveriesOf(id)).toMatchObject([
      { state: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' },
    ]);
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 0 }); // not due before the backoff (1 s)
    t.clock.advance(1_000);
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 1 });
    t.clock.advance(1_999);
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 0 }); // second backoff: 2 s
    t.clock.advance(1);
    expect(await worker.tick()).toEqual({ delivered: 1, failed: 0 });
    expect(received.map((r) => JSON.parse(r.body))).toEqual([
      { status: 'packed' },
      { status: 'packed' },
      { status: 'packed' },
    ]);
    expect(await deliveriesOf(id)).toMatchObject([{ state: 'delivered', attempts: 3, lastStatus: 200 }]);
  });

  it('records an unreachable receiver as a failed attempt', async () => {
    const channel = await admin({
      method: 'POST',
      url: '/api/realtime/channels',
      payload: { pattern: 'dead', webhookUrls: [deadUrl] },
    });
    expect(channel.statusCode).toBe(201);
    const id = await publish('dead', { n: 1 });
    expect(await worker.tick()).toEqual({ delivered: 0, failed: 1 });
    const [delivery] = await deliveriesOf(id);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
    expect(delivery.lastError).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it('delivers each message once while two servers tick at the same time', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push(await publish(`orders:burst-${n}`, { n }));
    let rounds = 0;
    for (;;) {
      const reports = await Promise.all([worker.tick(), otherWorker.tick(), worker.tick(), otherWorker.tick()]);
      rounds++;
      if (reports.every((r) => r.delivered === 0 && r.failed === 0) || rounds > 10) break;
    }
    const seen = received.map((r) => r.headers['x-svc-message-id']).sort();
    expect(seen).toEqual([...ids].sort());
    // Nothing sent again by either server, even once every lease would have ended.
    t.clock.advance(24 * 60 * 60 * 1000);
    await Promise.all([worker.tick(), otherWorker.tick()]);
    expect(received).toHaveLength(ids.length);
    for (const id of ids) expect(await deliveriesOf(id)).toMatchObject([{ state: 'delivered', attempts: 1 }]);
  });

  it('lets an admin retry a delivery, and answers 404 for an unknown one', async () => {
    const id = await publish('orders:again', { status: 'returned' });
    await worker.tick();
    const [delivery] = await deliveriesOf(id);
    const retried = await admin({ method: 'POST', url: `/api/realtime/webhook-deliveries/${delivery.id}/retry` });
    expect(retried.statusCode).toBe(200);
    expect(retried.json).toMatchObject({ id: delivery.id, state: 'pending', attempts: 0 });
    expect(await worker.tick()).toEqual({ delivered: 1, failed: 0 });
    expect(received).toHaveLength(2);
    const unknown = await admin({
      method: 'POST',
      url: '/api/realtime/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.error).toBe('REALTIME_WEBHOOK_DELIVERY_NOT_FOUND');
    const failedOnly = await admin({ method: 'GET', url: '/api/realtime/webhook-deliveries?state=failed' });
    expect(failedOnly.json).toEqual([]);
  });
});

describe('webhook signatures', () => {
  /** A receiver as an app writes it: verifies the signature and a 5-minute timestamp tolerance. */
  const outcomes: { status: number; hit: Received }[] = [];
  beforeAll(async () => {
    const secret = await signingSecretValue();
    onVerifying = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const hit = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const age = Math.abs(Math.floor(t.clock.now().getTime() / 1000) - Number(hit.headers['x-plinth-timestamp']));
        res.statusCode = verifySignature(secret, hit) && age <= 300 ? 200 : 401;
        outcomes.push({ status: res.statusCode, hit });
        res.end();
      });
    };
    const res = await admin({
      method: 'POST',
      url: '/api/realtime/channels',
      payload: { pattern: 'signed:%', webhookUrls: [verifyingUrl] },
    });
    expect(res.statusCode).toBe(201);
  });

  /** Sends a captured delivery again with some headers changed, as an attacker replaying it would. */
  async function replay(hit: Received, changes: Record<string, string>): Promise<number> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(hit.headers)) {
      if (typeof value === 'string' && (name.startsWith('x-') || name === 'content-type')) headers[name] = value;
    }
    const res = await fetch(verifyingUrl, { method: 'POST', headers: { ...headers, ...changes }, body: hit.body });
    return res.status;
  }

  it('signs channel, event, message id, timestamp and sender with the body: a tampered copy is refused', async () => {
    const id = await publish('signed:orders', { amount: 10 });
    expect((await worker.tick()).delivered).toBe(1); // (the dead receiver's retries fail beside it)
    const { hit, status } = outcomes.find((o) => o.hit.headers['x-svc-message-id'] === id)!;
    expect(status).toBe(200);
    expect(hit.headers).toMatchObject({
      'x-svc-channel': 'signed:orders',
      'x-svc-event': 'order.updated',
      'x-svc-sender-type': 'system',
      'x-svc-sender-id': '',
      'x-plinth-signature': expect.stringMatching(/^v2=[0-9a-f]{64}$/),
    });
    expect(await replay(hit, {})).toBe(200); // the untouched copy verifies
    expect(await replay(hit, { 'x-svc-channel': 'signed:admin' })).toBe(401);
    expect(await replay(hit, { 'x-svc-event': 'order.refunded' })).toBe(401);
    expect(await replay(hit, { 'x-svc-sender-type': 'user' })).toBe(401);
    expect(await replay(hit, { 'x-svc-message-id': '00000000-0000-4000-8000-000000000000' })).toBe(401);
    const later = String(Number(hit.headers['x-plinth-timestamp']) + 60);
    expect(await replay(hit, { 'x-plinth-timestamp': later })).toBe(401);
    // The genuine copy replayed after the tolerance is refused by its signed timestamp.
    t.clock.advance(301_000);
    expect(await replay(hit, {})).toBe(401);
  });

  it('names a client publisher (sender type and id), so receivers can ignore client-published messages', async () => {
    const { user } = await t.signUp();
    const [row] = await t.deps.sql`
      insert into realtime.messages (event_name, channel_id, channel_name, payload, sender_type, sender_id)
      select 'chat', id, 'signed:room', '{"text":"hi"}'::jsonb, 'user', ${user.id}::uuid
      from realtime.channels where pattern = 'signed:%'
      returning id`;
    expect((await worker.tick()).delivered).toBe(1); // (the dead receiver's retries fail beside it)
    const { hit, status } = outcomes.find((o) => o.hit.headers['x-svc-message-id'] === row!.id)!;
    expect(status).toBe(200);
    expect(hit.headers).toMatchObject({ 'x-svc-sender-type': 'user', 'x-svc-sender-id': user.id });
    expect(await replay(hit, { 'x-svc-sender-type': 'system', 'x-svc-sender-id': '' })).toBe(401);
  });

  it('percent-encodes a channel name that is not plain ASCII, and signs it as sent', async () => {
    const id = await publish('signed:café\nx', { n: 1 });
    expect((await worker.tick()).delivered).toBe(1); // (the dead receiver's retries fail beside it)
    const { hit, status } = outcomes.find((o) => o.hit.headers['x-svc-message-id'] === id)!;
    expect(status).toBe(200);
    expect(hit.headers['x-svc-channel']).toBe('signed:caf%C3%A9%0Ax');
    expect(decodeURI(hit.headers['x-svc-channel'] as string)).toBe('signed:café\nx');
  });
});

describe('a running webhook worker', () => {
  it('is woken by the queued delivery (NOTIFY) and sends it without waiting for its hour-long poll', async () => {
    const running = createWebhookWorker(t.deps);
    await running.start(60 * 60 * 1000);
    try {
      const id = await publish('orders:woken', { status: 'packed' });
      await pollUntil('the woken worker to record the delivery', 10_000, async () =>
        (await deliveriesOf(id))[0]?.state === 'delivered' ? true : undefined,
      );
      expect(await deliveriesOf(id)).toMatchObject([{ state: 'delivered', attempts: 1 }]);
      expect(received.filter((r) => r.headers['x-svc-message-id'] === id)).toHaveLength(1);
    } finally {
      await running.stop();
    }
  });
});
