// The official JavaScript client's seven payments.razorpay calls against a listening Plinth whose
// Razorpay is the loopback peer: orders (guest and per subject), Checkout's signatures, and
// subscriptions with cancel/pause/resume — plus what an attacker tries: someone else's subject or
// subscription, forged or swapped signatures, the API key, an unknown plan, an unconfigured environment.
import { createHmac, randomBytes } from 'node:crypto';
import { createAdminClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRazorpayPeer, type RazorpayPeer } from '../../harness/razorpay-peer.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

const KEY_ID = 'rzp_test_plinth000001';
const KEY_SECRET = 'rzp-test-secret-value-1';
const hmac = (message: string, secret = KEY_SECRET) => createHmac('sha256', secret).update(message).digest('hex');

let s: SdkApp;
let peer: RazorpayPeer;
let alice: InsForgeClient;
let bob: InsForgeClient;
let aliceId = '';
let bobId = '';
let planId = '';

async function signedIn() {
  const client = s.client({ isServerMode: true });
  const { data, error } = await client.auth.signUp({
    email: `rzp-${randomBytes(4).toString('hex')}@example.com`,
    password: 'sdk-password-1',
  });
  expect(error).toBeNull();
  return { client, id: data!.user!.id };
}

const count = async (table: string, where = 'true') =>
  Number((await s.t.deps.sql.unsafe(`select count(*)::int as n from payments.${table} where ${where}`))[0]!.n);

beforeAll(async () => {
  peer = await startRazorpayPeer();
  peer.addAccount(KEY_ID, KEY_SECRET);
  s = await startSdkApp({ env: peer.env });
  const admin = { 'x-api-key': s.t.apiKey };
  const configured = await s.t.request({
    method: 'PUT',
    url: '/api/payments/razorpay/test/config',
    headers: admin,
    payload: { keyId: KEY_ID, keySecret: KEY_SECRET },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  const plan = await s.t.request({
    method: 'POST',
    url: '/api/payments/razorpay/test/catalog/plans',
    headers: admin,
    payload: { period: 'monthly', interval: 1, item: { name: 'Pro', amount: 49900, currency: 'inr' } },
  });
  expect(plan.statusCode, plan.body).toBe(201);
  planId = plan.json.plan.planId;
  ({ client: alice, id: aliceId } = await signedIn());
  ({ client: bob, id: bobId } = await signedIn());
});
afterAll(async () => {
  await s.close();
  await peer.close();
});

describe('payments.razorpay orders', () => {
  it('createOrder as a guest (anon key) creates the Razorpay order and Checkout options', async () => {
    const { data, error } = await s.client().payments.razorpay.createOrder('test', {
      amount: 50000,
      currency: 'inr',
      description: 'Tea',
      customerEmail: 'guest@example.com',
      callbackUrl: 'https://app.example.com/paid',
      notes: { cart: 'c-1' },
    });
    expect(error).toBeNull();
    const { order, checkoutOptions } = data!;
    expect(order).toMatchObject({
      environment: 'test',
      status: 'created',
      subjectType: null,
      amount: 50000,
      amountPaid: 0,
      amountDue: 50000,
      currency: 'inr',
      receipt: order.id.replaceAll('-', ''),
      notes: { cart: 'c-1', svc_order_id: order.id },
    });
    expect(order.orderId).toMatch(/^order_/);
    expect(checkoutOptions).toEqual({
      key: KEY_ID,
      amount: 50000,
      currency: 'INR',
      order_id: order.orderId,
      description: 'Tea',
      callback_url: 'https://app.example.com/paid',
      prefill: { email: 'guest@example.com' },
    });
    const sent = peer.requests.find((r) => r.path === '/v1/orders' && r.body?.notes?.svc_order_id === order.id)!;
    expect(sent.body).toMatchObject({ amount: 50000, currency: 'INR', receipt: order.receipt });
  });

  it("createOrder for the user's own subject records it; for someone else's it is refused and nothing is written", async () => {
    const own = await alice.payments.razorpay.createOrder('test', {
      amount: 1000,
      currency: 'INR',
      subject: { type: 'user', id: aliceId },
    });
    expect(own.error).toBeNull();
    expect(own.data!.order).toMatchObject({ subjectType: 'user', subjectId: aliceId, status: 'created' });
    expect(own.data!.order.notes).toMatchObject({ svc_subject_type: 'user', svc_subject_id: aliceId });

    const callsBefore = peer.requests.length;
    const foreign = await alice.payments.razorpay.createOrder('test', {
      amount: 1000,
      currency: 'INR',
      subject: { type: 'user', id: bobId },
    });
    expect(foreign.error).toMatchObject({ statusCode: 403, error: 'FORBIDDEN' });
    expect(foreign.error!.nextActions).toMatch(/row-level security/);
    expect(await count('razorpay_orders', `subject_id = '${bobId}'`)).toBe(0);
    expect(peer.requests.length).toBe(callsBefore);

    // A guest cannot claim a subject either.
    const guest = await s.client().payments.razorpay.createOrder('test', {
      amount: 1000,
      currency: 'INR',
      subject: { type: 'user', id: aliceId },
    });
    expect(guest.error).toMatchObject({ statusCode: 403 });
  });

  it('the API key (no user behind it) is refused; unknown fields and reserved notes are 400', async () => {
    const adminClient = createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey, retryCount: 0 });
    const viaKey = await adminClient.payments.razorpay.createOrder('test', { amount: 1000, currency: 'INR' });
    expect(viaKey.error).toMatchObject({ statusCode: 401 });

    const unknown = await s
      .client()
      .payments.razorpay.createOrder('test', { amount: 1000, currency: 'INR', extra: 1 } as never);
    expect(unknown.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    const reserved = await s
      .client()
      .payments.razorpay.createOrder('test', { amount: 1000, currency: 'INR', notes: { svc_order_id: 'forged' } });
    expect(reserved.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    const badEnv = await s.client().payments.razorpay.createOrder('prod' as never, { amount: 1000, currency: 'INR' });
    expect(badEnv.error).toMatchObject({ statusCode: 400 });
  });

  it('verifyOrder accepts exactly the signature Razorpay Checkout computes, and nothing else', async () => {
    const { data } = await s.client().payments.razorpay.createOrder('test', { amount: 2000, currency: 'INR' });
    const orderId = data!.order.orderId!;
    const paymentId = 'pay_verify001';
    const guest = s.client().payments.razorpay;

    const forged = [
      hmac(`${orderId}|${paymentId}`, 'not-the-secret'), // another secret
      hmac(`${paymentId}|${orderId}`), // the subscription rule's order
      hmac(`${orderId}|pay_other`), // another payment's signature
      hmac(`${orderId}|${paymentId}`).slice(0, 63), // not 64 hex characters
      'z'.repeat(64),
    ];
    for (const signature of forged) {
      const res = await guest.verifyOrder('test', { orderId, paymentId, signature });
      expect(res.error, signature).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    }
    expect(
      (await s.t.deps.sql`select status from payments.razorpay_orders where order_id = ${orderId}`)[0]!.status,
    ).toBe('created');

    const ok = await guest.verifyOrder('test', { orderId, paymentId, signature: hmac(`${orderId}|${paymentId}`) });
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({
      verified: true,
      order: { orderId, status: 'attempted', verifiedPaymentId: paymentId },
    });

    // A valid signature for an order Plinth never created: 404, not a silent success.
    const stranger = await guest.verifyOrder('test', {
      orderId: 'order_unknown1',
      paymentId,
      signature: hmac(`order_unknown1|${paymentId}`),
    });
    expect(stranger.error).toMatchObject({ statusCode: 404, error: 'PAYMENT_NOT_FOUND' });
  });

  it('an environment without keys answers 400 PAYMENT_CONFIG_NOT_FOUND with nextActions, and records nothing', async () => {
    const before = await count('razorpay_orders');
    const res = await s.client().payments.razorpay.createOrder('live', { amount: 1000, currency: 'INR' });
    expect(res.error).toMatchObject({ statusCode: 400, error: 'PAYMENT_CONFIG_NOT_FOUND' });
    expect(res.error!.nextActions).toContain('PUT /api/payments/razorpay/live/config');
    expect(await count('razorpay_orders')).toBe(before);
    const sub = await alice.payments.razorpay.createSubscription('live', {
      planId,
      totalCount: 3,
      subject: { type: 'user', id: aliceId },
    });
    expect(sub.error).toMatchObject({ statusCode: 400, error: 'PAYMENT_CONFIG_NOT_FOUND' });
  });
});

describe('payments.razorpay subscriptions', () => {
  let subscriptionId = '';

  it('createSubscription for the own subject starts it at Razorpay with the subject in its notes', async () => {
    const { data, error } = await alice.payments.razorpay.createSubscription('test', {
      planId,
      totalCount: 12,
      customerNotify: false,
      subject: { type: 'user', id: aliceId },
      customerEmail: 'alice@example.com',
      notes: { seat: 'a' },
    });
    expect(error).toBeNull();
    subscriptionId = data!.subscription.subscriptionId;
    expect(data!.subscription).toMatchObject({
      environment: 'test',
      planId,
      status: 'created',
      subjectType: 'user',
      subjectId: aliceId,
      totalCount: 12,
      hasScheduledChanges: false,
      notes: { seat: 'a', svc_subject_type: 'user', svc_subject_id: aliceId },
    });
    expect(data!.checkoutOptions).toEqual({
      key: KEY_ID,
      subscription_id: subscriptionId,
      prefill: { email: 'alice@example.com' },
    });
    expect(peer.get(KEY_ID, subscriptionId)).toMatchObject({
      plan_id: planId,
      total_count: 12,
      customer_notify: false,
    });
    // The creation probe left no row behind.
    expect(await count('razorpay_subscriptions', `subscription_id like 'sub_rls_probe_%'`)).toBe(0);
  });

  it("is refused for an unknown plan (400 with nextActions), someone else's subject (403) and the anon key (401)", async () => {
    const before = await count('razorpay_subscriptions');
    const unknown = await alice.payments.razorpay.createSubscription('test', {
      planId: 'plan_doesnotexist',
      totalCount: 3,
      subject: { type: 'user', id: aliceId },
    });
    expect(unknown.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(unknown.error!.nextActions).toMatch(/plan_id/);
    const foreign = await alice.payments.razorpay.createSubscription('test', {
      planId,
      totalCount: 3,
      subject: { type: 'user', id: bobId },
    });
    expect(foreign.error).toMatchObject({ statusCode: 403, error: 'FORBIDDEN' });
    const anon = await s.client().payments.razorpay.createSubscription('test', {
      planId,
      totalCount: 3,
      subject: { type: 'user', id: aliceId },
    });
    expect(anon.error).toMatchObject({ statusCode: 401 });
    const endless = await alice.payments.razorpay.createSubscription('test', {
      planId,
      subject: { type: 'user', id: aliceId },
    } as never);
    expect(endless.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(await count('razorpay_subscriptions')).toBe(before);
  });

  it('verifySubscription checks HMAC(payment_id|subscription_id) and marks it authenticated', async () => {
    const paymentId = 'pay_auth0001';
    const swapped = await alice.payments.razorpay.verifySubscription('test', {
      subscriptionId,
      paymentId,
      signature: hmac(`${subscriptionId}|${paymentId}`),
    });
    expect(swapped.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    const ok = await alice.payments.razorpay.verifySubscription('test', {
      subscriptionId,
      paymentId,
      signature: hmac(`${paymentId}|${subscriptionId}`),
    });
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({
      verified: true,
      subscription: { subscriptionId, status: 'authenticated', authorizationPaymentId: paymentId },
    });
  });

  it('another user cannot cancel, pause or resume it (404, Razorpay never called); the owner can', async () => {
    const callsBefore = peer.requests.length;
    for (const attempt of [
      () => bob.payments.razorpay.cancelSubscription('test', subscriptionId),
      () => bob.payments.razorpay.pauseSubscription('test', subscriptionId),
      () => bob.payments.razorpay.resumeSubscription('test', subscriptionId),
    ]) {
      const { error } = await attempt();
      expect(error).toMatchObject({ statusCode: 404, error: 'PAYMENT_NOT_FOUND' });
    }
    expect(peer.requests.length).toBe(callsBefore);

    peer.get(KEY_ID, subscriptionId)!.status = 'active';
    const paused = await alice.payments.razorpay.pauseSubscription('test', subscriptionId);
    expect(paused.error).toBeNull();
    expect(paused.data!.subscription).toMatchObject({ status: 'paused', subjectId: aliceId });
    const resumed = await alice.payments.razorpay.resumeSubscription('test', subscriptionId);
    expect(resumed.data!.subscription.status).toBe('active');
    const atEnd = await alice.payments.razorpay.cancelSubscription('test', subscriptionId, { cancelAtCycleEnd: true });
    expect(atEnd.data!.subscription).toMatchObject({ status: 'active', hasScheduledChanges: true });
    expect(peer.requests.at(-1)).toMatchObject({
      path: `/v1/subscriptions/${subscriptionId}/cancel`,
      body: { cancel_at_cycle_end: 1 },
    });
    const cancelled = await alice.payments.razorpay.cancelSubscription('test', subscriptionId);
    expect(cancelled.data!.subscription.status).toBe('cancelled');
    expect(peer.requests.at(-1)!.body).toBeUndefined();

    // Razorpay's own refusal (resuming a cancelled subscription) reaches the client as a 400.
    const again = await alice.payments.razorpay.resumeSubscription('test', subscriptionId);
    expect(again.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
  });

  it('an unknown subscription id is 404 for its owner too', async () => {
    const { error } = await alice.payments.razorpay.cancelSubscription('test', 'sub_nothere');
    expect(error).toMatchObject({ statusCode: 404, error: 'PAYMENT_NOT_FOUND' });
  });
});
