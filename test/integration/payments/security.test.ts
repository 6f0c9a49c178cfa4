// A caller cannot smuggle a billing subject it may not act for through checkout metadata: the
// svc_ keys are the platform's (the webhook maps customers and subscriptions by them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { twoUsers, type SignedInUser } from '../../harness/users.js';
import { deliverEvent, startPaymentsApp, stockOnePrice, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
let alice: SignedInUser;
let bob: SignedInUser;

beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
  ({ alice, bob } = await twoUsers(p.t));
  await stockOnePrice(p, 'recurring');
});
afterAll(() => p.close());

const checkout = (headers: Record<string, string>, extra: object) =>
  p.t.request({
    method: 'POST',
    url: '/api/payments/test/checkout-sessions',
    headers,
    payload: {
      mode: 'subscription',
      lineItems: [{ processorPriceId: 'price_1', quantity: 1 }],
      successUrl: 'https://app.example.com/ok',
      cancelUrl: 'https://app.example.com/no',
      ...extra,
    },
  });

describe('checkout metadata cannot name a subject', () => {
  it("a guest's or a user's metadata carrying svc_subject_* for someone else is a 400 and nothing is recorded", async () => {
    const smuggled = { svc_subject_type: 'user', svc_subject_id: bob.id };
    for (const [headers, extra] of [
      [bearer(p.t.anonKey), { metadata: smuggled }],
      [bearer(alice.token), { metadata: smuggled }],
      [bearer(alice.token), { subject: { type: 'user', id: alice.id }, metadata: { svc_checkout_session_id: 'x' } }],
    ] as const) {
      const res = await checkout(headers, extra);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
      expect(res.json.message).toMatch(/svc_/);
    }
    expect(await p.t.deps.sql`select id from payments.checkout_sessions`).toEqual([]);
  });

  it('other metadata keys still pass through', async () => {
    const res = await checkout(bearer(alice.token), {
      subject: { type: 'user', id: alice.id },
      metadata: { plan: 'pro' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sent = p.peer.get(TEST_KEY, res.json.checkoutSession.processorCheckoutSessionId)!;
    expect(sent.metadata).toMatchObject({ plan: 'pro', svc_subject_id: alice.id });
  });
});

describe('signed but malformed webhook events', () => {
  it('an event without data.object or without an id is a 400, recorded nowhere', async () => {
    const base = { object: 'event', type: 'customer.subscription.updated', livemode: false, created: 1 };
    for (const body of [
      { id: 'evt_nodata', ...base },
      { id: 'evt_noobject', ...base, data: {} },
      { ...base, data: { object: { id: 'sub_1', object: 'subscription' } } },
    ]) {
      const res = await deliverEvent(p, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
    }
    expect(await p.t.deps.sql`select processor_event_id from payments.webhook_events`).toEqual([]);
  });
});
