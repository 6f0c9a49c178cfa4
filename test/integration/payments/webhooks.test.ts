// Processor webhooks with real signatures: valid, wrong secret, stale, replayed, out of order
// (the newest state wins), unknown events ignored, a failing event rolled back and retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import {
  deliverEvent,
  processorEvent,
  startPaymentsApp,
  subscriptionObject,
  WEBHOOK_SECRETS,
  type PaymentsApp,
} from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
});
afterAll(() => p.close());

const event = (type: string, object: object, options: Parameters<typeof processorEvent>[3] = {}) =>
  processorEvent(p, type, object, options);
const deliver = (body: object, options: Parameters<typeof deliverEvent>[2] = {}) => deliverEvent(p, body, options);

const subscriptions = async (query = '') =>
  (await p.t.request({ method: 'GET', url: `/api/payments/test/subscriptions${query}`, headers: p.admin })).json
    .subscriptions;
const subject = { svc_subject_type: 'user', svc_subject_id: 'u-1' };

describe('processor webhooks', () => {
  it('applies a validly signed subscription event and maps its customer to the subject', async () => {
    const res = await deliver(
      event(
        'customer.subscription.created',
        subscriptionObject('sub_w1', 'cus_w1', 'incomplete', { metadata: subject }),
      ),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({
      received: true,
      handled: true,
      event: {
        environment: 'test',
        eventType: 'customer.subscription.created',
        objectType: 'subscription',
        objectId: 'sub_w1',
        processingStatus: 'processed',
        attemptCount: 1,
        lastError: null,
      },
    });
    const [sub] = await subscriptions('?subjectType=user&subjectId=u-1');
    expect(sub).toMatchObject({
      processorSubscriptionId: 'sub_w1',
      status: 'incomplete',
      items: [{ processorPriceId: 'price_pro' }],
    });
    const [mapping] = await p.t.deps
      .sql`select processor_customer_id from payments.customer_mappings where subject_id = 'u-1'`;
    expect(mapping!.processor_customer_id).toBe('cus_w1');
  });

  it('rejects a wrong secret, a stale timestamp, a garbled or missing header, and changes nothing', async () => {
    const body = event(
      'customer.subscription.updated',
      subscriptionObject('sub_w1', 'cus_w1', 'canceled', { metadata: subject }),
    );
    const wrong = await deliver(body, { secret: 'whsec_not_ours' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'VALIDATION_ERROR', message: 'Invalid webhook signature.' });
    const stale = await deliver(body, { timestamp: epochSeconds(p.t.clock.now()) - 301 });
    expect(stale.statusCode).toBe(400);
    expect((await deliver(body, { signature: 't=1,v1=abc' })).statusCode).toBe(400);
    const missing = await deliver(body, { signature: null });
    expect(missing.statusCode).toBe(401);
    expect(missing.json.error).toBe('UNAUTHORIZED');
    // The other environment's secret does not open this one.
    expect((await deliver(body, { secret: WEBHOOK_SECRETS.live })).statusCode).toBe(400);
    expect((await deliver(body, { env: 'live' })).statusCode).toBe(400); // a test event at the live endpoint
    expect((await subscriptions())[0].status).toBe('incomplete');
    expect(
      await p.t.deps.sql`select 1 from payments.webhook_events where processor_event_id = ${body.id}`,
    ).toHaveLength(0);
  });

  it('accepts a signature 300 s old (the tolerance) measured on the server clock', async () => {
    const signedAt = epochSeconds(p.t.clock.now());
    const body = event('customer.updated', {
      id: 'cus_w1',
      object: 'customer',
      email: 'w1@example.com',
      name: null,
      metadata: subject,
    });
    p.t.clock.advance(300_000);
    expect((await deliver(body, { timestamp: signedAt })).statusCode).toBe(200);
  });

  it('a replayed event is acknowledged once and applied once', async () => {
    const body = event(
      'customer.subscription.updated',
      subscriptionObject('sub_w1', 'cus_w1', 'active', { metadata: subject }),
    );
    const first = await deliver(body);
    const replay = await deliver(body);
    expect(first.json.handled).toBe(true);
    expect(replay.statusCode).toBe(200);
    expect(replay.json).toMatchObject({
      received: true,
      handled: false,
      event: { processingStatus: 'processed', attemptCount: 1 },
    });
    const rows = await p.t.deps
      .sql`select attempt_count from payments.webhook_events where processor_event_id = ${body.id}`;
    expect(rows).toEqual([{ attempt_count: 1 }]);
  });

  it('out-of-order subscription updates: the newest state wins', async () => {
    const base = epochSeconds(p.t.clock.now()) + 10;
    const newer = event(
      'customer.subscription.updated',
      subscriptionObject('sub_w2', 'cus_w1', 'past_due', { metadata: subject }),
      { created: base + 5 },
    );
    const older = event(
      'customer.subscription.updated',
      subscriptionObject('sub_w2', 'cus_w1', 'active', { metadata: subject }),
      { created: base },
    );
    expect((await deliver(newer)).statusCode).toBe(200);
    const late = await deliver(older);
    expect(late.statusCode).toBe(200);
    expect(late.json.event.processingStatus).toBe('processed');
    const sub = (await subscriptions()).find(
      (s: { processorSubscriptionId: string }) => s.processorSubscriptionId === 'sub_w2',
    );
    expect(sub.status).toBe('past_due');
    const newest = event(
      'customer.subscription.deleted',
      subscriptionObject('sub_w2', 'cus_w1', 'canceled', { metadata: subject, canceled_at: base + 9 }),
      { created: base + 9 },
    );
    await deliver(newest);
    const canceled = (await subscriptions()).find(
      (s: { processorSubscriptionId: string }) => s.processorSubscriptionId === 'sub_w2',
    );
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: new Date((base + 9) * 1000).toISOString() });
  });

  it('records unknown events as ignored', async () => {
    const res = await deliver(event('payout.paid', { id: 'po_1', object: 'payout' }));
    expect(res.json).toMatchObject({
      handled: false,
      event: { processingStatus: 'ignored', eventType: 'payout.paid' },
    });
  });

  it('completes a checkout session opened through Plinth', async () => {
    p.peer.put('sk_test_plinth0000000000000001', {
      id: 'price_w',
      object: 'price',
      product: 'prod_w',
      currency: 'usd',
      unit_amount: 5,
      active: true,
      type: 'one_time',
    });
    const user = await p.t.signUp();
    const opened = await p.t.request({
      method: 'POST',
      url: '/api/payments/test/checkout-sessions',
      headers: { authorization: `Bearer ${user.accessToken}` },
      payload: {
        mode: 'subscription',
        subject: { type: 'user', id: user.user.id },
        lineItems: [{ processorPriceId: 'price_w' }],
        successUrl: 'https://a.example/ok',
        cancelUrl: 'https://a.example/no',
      },
    });
    const local = opened.json.checkoutSession;
    const res = await deliver(
      event('checkout.session.completed', {
        id: local.processorCheckoutSessionId,
        object: 'checkout.session',
        client_reference_id: local.id,
        customer: 'cus_new',
        subscription: 'sub_new',
        payment_intent: null,
        payment_status: 'paid',
        status: 'complete',
        metadata: { svc_subject_type: 'user', svc_subject_id: user.user.id, svc_checkout_session_id: local.id },
      }),
    );
    expect(res.json.handled).toBe(true);
    const [row] = await p.t.deps
      .sql`select status, payment_status, processor_customer_id, processor_subscription_id from payments.checkout_sessions where id = ${local.id}`;
    expect(row).toEqual({
      status: 'completed',
      payment_status: 'paid',
      processor_customer_id: 'cus_new',
      processor_subscription_id: 'sub_new',
    });
    const [mapping] = await p.t.deps
      .sql`select processor_customer_id from payments.customer_mappings where subject_id = ${user.user.id}`;
    expect(mapping!.processor_customer_id).toBe('cus_new');
  });

  it('an event failing half way is rolled back, answered 500 for the processor to retry, then applied on retry', async () => {
    const broken = event(
      'customer.subscription.created',
      subscriptionObject('sub_w3', null as never, 'active', {
        metadata: { svc_subject_type: 'team', svc_subject_id: 'half' },
      }),
    );
    const res = await deliver(broken);
    expect(res.statusCode).toBe(500);
    expect(await p.t.deps.sql`select 1 from payments.customer_mappings where subject_id = 'half'`).toHaveLength(0);
    const [failed] = await p.t.deps
      .sql`select processing_status, attempt_count, last_error from payments.webhook_events where processor_event_id = ${broken.id}`;
    expect(failed).toMatchObject({ processing_status: 'failed', attempt_count: 1, last_error: expect.any(String) });

    const fixed = {
      ...broken,
      data: {
        object: subscriptionObject('sub_w3', 'cus_w3', 'active', {
          metadata: { svc_subject_type: 'team', svc_subject_id: 'half' },
        }),
      },
    };
    const retry = await deliver(fixed);
    expect(retry.json).toMatchObject({
      handled: true,
      event: { processingStatus: 'processed', attemptCount: 2, lastError: null },
    });
    expect(await subscriptions('?subjectType=team&subjectId=half')).toHaveLength(1);
  });

  it('live events go to the live mirror only', async () => {
    const res = await deliver(
      event(
        'customer.created',
        { id: 'cus_live1', object: 'customer', email: null, name: null, metadata: subject },
        { livemode: true },
      ),
      { env: 'live' },
    );
    expect(res.json.handled).toBe(true);
    const rows = await p.t.deps
      .sql`select environment from payments.customers where processor_customer_id = 'cus_live1'`;
    expect(rows).toEqual([{ environment: 'live' }]);
  });
});
