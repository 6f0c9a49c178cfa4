// Razorpay's admin side and webhook against the loopback Razorpay peer: keys stored as sealed
// secrets (checked with Razorpay first), status, catalog items and plans, sync, customers,
// transactions; the signed webhook (X-Razorpay-Signature over the raw body) with deduplication,
// secret rotation and its grace period — and what an attacker sends: no signature, a forged or
// other-environment signature, a replay, a re-serialised body.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRazorpayPeer, type RazorpayPeer } from '../../harness/razorpay-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

const KEY_ID = 'rzp_test_admin0000001';
const KEY_SECRET = 'rzp-admin-secret-1';
const OTHER_KEY_ID = 'rzp_test_admin0000002';
const WEBHOOK_SECRET = 'whsec-razorpay-test-1';

let t: TestApp;
let peer: RazorpayPeer;
let admin: { 'x-api-key': string };

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');

function deliver(
  body: string,
  options: { secret?: string; env?: string; eventId?: string; signature?: string | null } = {},
) {
  const signature = options.signature === undefined ? sign(body, options.secret ?? WEBHOOK_SECRET) : options.signature;
  return t.request({
    method: 'POST',
    url: `/api/webhooks/razorpay/${options.env ?? 'test'}`,
    headers: {
      'content-type': 'application/json',
      ...(signature === null ? {} : { 'x-razorpay-signature': signature }),
      ...(options.eventId ? { 'x-razorpay-event-id': options.eventId } : {}),
    },
    payload: body,
  });
}

const event = (name: string, payload: Record<string, unknown>, createdAt = 1_790_000_000) =>
  JSON.stringify({
    entity: 'event',
    account_id: 'acc_plinthtest',
    event: name,
    contains: Object.keys(payload),
    payload: Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, { entity: v }])),
    created_at: createdAt,
  });

beforeAll(async () => {
  peer = await startRazorpayPeer();
  peer.addAccount(KEY_ID, KEY_SECRET);
  peer.addAccount(OTHER_KEY_ID, KEY_SECRET);
  t = await startTestApp({ env: peer.env });
  admin = { 'x-api-key': t.apiKey };
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

describe('keys and status', () => {
  it('refuses a key id of the other environment and a key pair Razorpay rejects; stores nothing', async () => {
    const live = await t.request({
      method: 'PUT',
      url: '/api/payments/razorpay/test/config',
      headers: admin,
      payload: { keyId: 'rzp_live_x', keySecret: 's' },
    });
    expect(live.statusCode).toBe(400);
    expect(live.json).toMatchObject({ error: 'PAYMENT_CONFIG_INVALID' });
    const wrong = await t.request({
      method: 'PUT',
      url: '/api/payments/razorpay/test/config',
      headers: admin,
      payload: { keyId: KEY_ID, keySecret: 'wrong-secret' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'PAYMENT_CONFIG_INVALID' });
    const status = await t.request({ method: 'GET', url: '/api/payments/razorpay/status', headers: admin });
    expect(status.json.razorpayConnections.map((c: { status: string }) => c.status)).toEqual([
      'unconfigured',
      'unconfigured',
    ]);
  });

  it('stores the key pair and webhook secret sealed, shows them masked, and reports the connection', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/payments/razorpay/test/config',
      headers: admin,
      payload: { keyId: KEY_ID, keySecret: KEY_SECRET, webhookSecret: WEBHOOK_SECRET },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.keys).toContainEqual({ environment: 'test', keyType: 'api_key', value: 'rzp_test_****0001' });
    expect(res.json.keys).toContainEqual({ environment: 'live', keyType: 'api_secret', value: null });
    expect(JSON.stringify(res.json)).not.toContain(KEY_SECRET);
    const stored = await t.deps.sql`select key, value_ciphertext from system.secrets where key like 'RAZORPAY_TEST_%'`;
    expect(stored.map((r) => r.key).sort()).toEqual([
      'RAZORPAY_TEST_KEY_ID',
      'RAZORPAY_TEST_KEY_SECRET',
      'RAZORPAY_TEST_WEBHOOK_SECRET',
    ]);
    for (const row of stored) expect(row.value_ciphertext).not.toContain(KEY_SECRET);

    const status = await t.request({ method: 'GET', url: '/api/payments/razorpay/status', headers: admin });
    expect(status.json.razorpayConnections[0]).toMatchObject({
      environment: 'test',
      status: 'connected',
      maskedKey: 'rzp_test_****0001',
      webhookSecretConfigured: true,
      webhookUrl: `${t.config.apiBaseUrl}/api/webhooks/razorpay/test`,
    });
    const webhook = await t.request({ method: 'GET', url: '/api/payments/razorpay/test/webhook', headers: admin });
    expect(webhook.json).toMatchObject({ webhookSecret: WEBHOOK_SECRET });
  });

  it('is admin-only: a user token is 403 and sees no keys', async () => {
    const user = await t.signUp();
    for (const url of ['/api/payments/razorpay/config', '/api/payments/razorpay/test/webhook']) {
      const res = await t.request({ method: 'GET', url, headers: bearer(user.accessToken) });
      expect(res.statusCode).toBe(403);
      expect(res.body).not.toContain(WEBHOOK_SECRET);
    }
  });
});

describe('catalog, sync and the mirror', () => {
  it('creates and updates items and creates plans at Razorpay, mirrored locally', async () => {
    const item = await t.request({
      method: 'POST',
      url: '/api/payments/razorpay/test/catalog/items',
      headers: admin,
      payload: { name: 'Sticker', amount: 9900, currency: 'inr' },
    });
    expect(item.statusCode, item.body).toBe(201);
    expect(item.json.item).toMatchObject({ name: 'Sticker', amount: 9900, currency: 'INR', active: true });
    const patched = await t.request({
      method: 'PATCH',
      url: `/api/payments/razorpay/test/catalog/items/${item.json.item.itemId}`,
      headers: admin,
      payload: { amount: 12900 },
    });
    expect(patched.json.item).toMatchObject({ amount: 12900 });
    const reserved = await t.request({
      method: 'POST',
      url: '/api/payments/razorpay/test/catalog/plans',
      headers: admin,
      payload: {
        period: 'monthly',
        interval: 1,
        item: { name: 'X', amount: 100, currency: 'INR' },
        notes: { svc_subject_id: 'x' },
      },
    });
    expect(reserved.statusCode).toBe(400);
    const plan = await t.request({
      method: 'POST',
      url: '/api/payments/razorpay/test/catalog/plans',
      headers: admin,
      payload: { period: 'yearly', interval: 1, item: { name: 'Team', amount: 999900, currency: 'INR' } },
    });
    expect(plan.statusCode, plan.body).toBe(201);
    const catalog = await t.request({ method: 'GET', url: '/api/payments/razorpay/test/catalog', headers: admin });
    expect(catalog.json.items.map((i: { name: string }) => i.name)).toContain('Sticker');
    expect(catalog.json.plans[0]).toMatchObject({ period: 'yearly', amount: 999900, currency: 'INR' });
  });

  it('sync pulls customers (with their subject), subscriptions and payments', async () => {
    peer.put(KEY_ID, {
      id: 'cust_sync1',
      entity: 'customer',
      name: 'Asha',
      email: 'asha@example.com',
      contact: '+919000000000',
      notes: { svc_subject_type: 'team', svc_subject_id: 'team-7' },
      created_at: 1_790_000_000,
    });
    peer.put(KEY_ID, {
      id: 'pay_sync1',
      entity: 'payment',
      amount: 4200,
      currency: 'INR',
      status: 'captured',
      order_id: null,
      customer_id: 'cust_sync1',
      method: 'upi',
      email: 'asha@example.com',
      contact: '+919000000000',
      amount_refunded: 0,
      notes: [],
      created_at: 1_790_000_100,
    });
    const res = await t.request({ method: 'POST', url: '/api/payments/razorpay/test/sync', headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.results[0]).toMatchObject({
      environment: 'test',
      status: 'succeeded',
      counts: { customers: 1, payments: 1 },
    });
    const customers = await t.request({ method: 'GET', url: '/api/payments/razorpay/test/customers', headers: admin });
    expect(customers.json.customers).toContainEqual(
      expect.objectContaining({ customerId: 'cust_sync1', subjectType: 'team', subjectId: 'team-7' }),
    );
    const transactions = await t.request({
      method: 'GET',
      url: '/api/payments/razorpay/test/transactions?subjectType=team&subjectId=team-7',
      headers: admin,
    });
    expect(transactions.json.transactions).toEqual([
      expect.objectContaining({
        objectId: 'pay_sync1',
        type: 'payment',
        status: 'captured',
        amount: 4200,
        method: 'upi',
      }),
    ]);
    const half = await t.request({
      method: 'GET',
      url: '/api/payments/razorpay/test/transactions?subjectType=team',
      headers: admin,
    });
    expect(half.statusCode).toBe(400);
    const all = await t.request({ method: 'POST', url: '/api/payments/razorpay/sync', headers: admin });
    expect(all.json.results.map((r: { environment: string }) => r.environment)).toEqual(['test']);
  });
});

describe('webhook', () => {
  let orderId = '';

  beforeAll(async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/payments/razorpay/test/orders',
      headers: bearer(t.anonKey),
      payload: { amount: 30000, currency: 'INR' },
    });
    expect(created.statusCode, created.body).toBe(201);
    orderId = created.json.order.orderId;
  });

  const captured = (id: string, amount = 30000) =>
    event('payment.captured', {
      payment: {
        id,
        entity: 'payment',
        amount,
        currency: 'INR',
        status: 'captured',
        order_id: orderId,
        method: 'card',
        notes: [],
      },
    });

  it('refuses a delivery without a signature (401), with a forged one, or signed for another body (400)', async () => {
    const body = captured('pay_forged');
    expect((await deliver(body, { signature: null })).statusCode).toBe(401);
    expect((await deliver(body, { secret: 'guessed' })).json).toMatchObject({
      statusCode: 400,
      error: 'VALIDATION_ERROR',
    });
    // The same event re-serialised (whitespace) no longer matches: the signature covers raw bytes.
    const reformatted = JSON.stringify(JSON.parse(body), null, 1);
    expect((await deliver(reformatted, { signature: sign(body, WEBHOOK_SECRET) })).statusCode).toBe(400);
    // Test's secret on the live endpoint (not configured): 400 with what to do.
    const live = await deliver(body, { env: 'live' });
    expect(live.statusCode).toBe(400);
    expect(live.json.nextActions).toContain('/api/payments/razorpay/live/config');
    expect((await t.deps.sql`select 1 from payments.razorpay_transactions where object_id = 'pay_forged'`).length).toBe(
      0,
    );
  });

  it('a captured payment pays the local order once; a replay is acknowledged and not applied again', async () => {
    const body = captured('pay_real1');
    const first = await deliver(body, { eventId: 'evt_rzp_1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json).toEqual({ received: true, handled: true });
    const [order] = await t.deps.sql`
      select status, amount_paid::int as paid, amount_due::int as due, verified_payment_id from payments.razorpay_orders
      where order_id = ${orderId}`;
    expect(order).toEqual({ status: 'paid', paid: 30000, due: 0, verified_payment_id: 'pay_real1' });

    const replay = await deliver(body, { eventId: 'evt_rzp_1' });
    expect(replay.json).toEqual({ received: true, handled: false });
    const [row] = await t.deps.sql`
      select processing_status, attempt_count from payments.webhook_events where provider = 'razorpay' and processor_event_id = 'evt_rzp_1'`;
    expect(row).toEqual({ processing_status: 'processed', attempt_count: 1 });

    // Without the event id header, the id is built from the account, event, entity and time: a replay is still caught.
    const other = captured('pay_real2');
    expect((await deliver(other)).json.handled).toBe(true);
    expect((await deliver(other)).json.handled).toBe(false);
    expect(
      (
        await t.deps
          .sql`select count(*)::int as n from payments.webhook_events where provider = 'razorpay' and object_id = 'pay_real2'`
      )[0]!.n,
    ).toBe(1);
  });

  it('a subscription event mirrors the subscription with the subject from its notes; unknown events are ignored', async () => {
    const res = await deliver(
      event('subscription.activated', {
        subscription: {
          id: 'sub_hook1',
          entity: 'subscription',
          plan_id: 'plan_x',
          customer_id: 'cust_hook1',
          status: 'active',
          current_start: 1_790_000_000,
          current_end: 1_792_592_000,
          paid_count: 1,
          total_count: 12,
          remaining_count: 11,
          notes: { svc_subject_type: 'user', svc_subject_id: 'u-hook' },
          created_at: 1_789_999_000,
        },
      }),
    );
    expect(res.json).toEqual({ received: true, handled: true });
    const subs = await t.request({
      method: 'GET',
      url: '/api/payments/razorpay/test/subscriptions?subjectType=user&subjectId=u-hook',
      headers: admin,
    });
    expect(subs.json.subscriptions).toEqual([
      expect.objectContaining({
        subscriptionId: 'sub_hook1',
        status: 'active',
        customerId: 'cust_hook1',
        currentEnd: new Date(1_792_592_000 * 1000).toISOString(),
        remainingCount: 11,
      }),
    ]);
    const ignored = await deliver(event('virtual_account.created', { virtual_account: { id: 'va_1' } }));
    expect(ignored.json).toEqual({ received: true, handled: false });
  });

  it('an event that fails to apply changes nothing, answers 500, and its retry is applied', async () => {
    const broken = { id: 'sub_broken1', entity: 'subscription', status: 'active', notes: [] }; // no plan_id
    const failed = await deliver(event('subscription.charged', { subscription: broken }), { eventId: 'evt_rzp_fail' });
    expect(failed.statusCode).toBe(500);
    const [row] = await t.deps.sql`
      select processing_status, attempt_count from payments.webhook_events where processor_event_id = 'evt_rzp_fail'`;
    expect(row).toEqual({ processing_status: 'failed', attempt_count: 1 });
    expect(
      (await t.deps.sql`select 1 from payments.razorpay_subscriptions where subscription_id = 'sub_broken1'`).length,
    ).toBe(0);
    const retried = await deliver(event('subscription.charged', { subscription: { ...broken, plan_id: 'plan_x' } }), {
      eventId: 'evt_rzp_fail',
    });
    expect(retried.json).toEqual({ received: true, handled: true });
    const [after] = await t.deps.sql`
      select processing_status, attempt_count from payments.webhook_events where processor_event_id = 'evt_rzp_fail'`;
    expect(after).toEqual({ processing_status: 'processed', attempt_count: 2 });
  });

  it('rotating the secret: the new one works at once, the old one until the grace period ends', async () => {
    const rotated = await t.request({
      method: 'POST',
      url: '/api/payments/razorpay/test/webhook/rotate-secret',
      headers: admin,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = rotated.json.webhookSecret as string;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.json.connection.previousWebhookSecretValidUntil).not.toBeNull();

    expect((await deliver(captured('pay_rot1'), { secret: fresh })).statusCode).toBe(200);
    expect((await deliver(captured('pay_rot2'), { secret: WEBHOOK_SECRET })).statusCode).toBe(200);
    t.clock.advance((t.config.razorpay.webhookSecretGraceSeconds + 1) * 1000);
    expect((await deliver(captured('pay_rot3'), { secret: WEBHOOK_SECRET })).statusCode).toBe(400);
    expect((await deliver(captured('pay_rot4'), { secret: fresh })).statusCode).toBe(200);
  });

  it('a new key id (maybe another account) clears the mirror; removing the keys twice is 404 the second time', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/payments/razorpay/test/config',
      headers: admin,
      payload: { keyId: OTHER_KEY_ID, keySecret: KEY_SECRET },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.deps.sql`select 1 from payments.razorpay_transactions where environment = 'test'`).length).toBe(0);
    expect(
      (await t.request({ method: 'DELETE', url: '/api/payments/razorpay/test/config', headers: admin })).statusCode,
    ).toBe(200);
    const again = await t.request({ method: 'DELETE', url: '/api/payments/razorpay/test/config', headers: admin });
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: 'PAYMENT_CONFIG_NOT_FOUND' });
    expect(again.json.nextActions).toBeTruthy();
  });
});
