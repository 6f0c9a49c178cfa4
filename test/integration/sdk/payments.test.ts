// The official JavaScript client's payments.stripe calls (POST /api/payments/stripe/{env}/…, the
// alias Plinth serves for it) against a listening Plinth whose processor is the loopback peer:
// guest and subject checkout with the client's `priceId` line items, and the customer portal.
import { randomBytes } from 'node:crypto';
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, WEBHOOK_SECRETS } from '../payments/payments-app.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
let alice: InsForgeClient;
let aliceId = '';

beforeAll(async () => {
  s = await startSdkApp({ processor: true });
  const admin = { 'x-api-key': s.t.apiKey };
  const configured = await s.t.request({
    method: 'PUT',
    url: '/api/payments/test/config',
    headers: admin,
    payload: { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRETS.test },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  alice = s.client({ isServerMode: true });
  const { data } = await alice.auth.signUp({
    email: `pay-${randomBytes(4).toString('hex')}@example.com`,
    password: 'sdk-password-1',
  });
  aliceId = data!.user!.id;
  const peer = s.processor!;
  peer.put(TEST_KEY, {
    id: 'cus_alice',
    object: 'customer',
    email: null,
    name: null,
    metadata: { svc_subject_type: 'user', svc_subject_id: aliceId },
  });
  peer.put(TEST_KEY, { id: 'prod_1', object: 'product', name: 'P', active: true });
  peer.put(TEST_KEY, {
    id: 'price_1',
    object: 'price',
    product: 'prod_1',
    currency: 'usd',
    unit_amount: 100,
    active: true,
    type: 'one_time',
  });
  expect((await s.t.request({ method: 'POST', url: '/api/payments/test/sync', headers: admin })).statusCode).toBe(200);
});
afterAll(() => s.close());

const urls = { successUrl: 'https://app.example.com/ok', cancelUrl: 'https://app.example.com/cancel' };

describe('payments.stripe', () => {
  it('createCheckoutSession as a guest (anon key) opens a processor checkout for the priceId given', async () => {
    const { data, error } = await s.client().payments.stripe.createCheckoutSession('test', {
      mode: 'payment',
      lineItems: [{ priceId: 'price_1', quantity: 2 }],
      customerEmail: 'guest@example.com',
      ...urls,
    });
    expect(error).toBeNull();
    // Field names are the spec's (processor…); the client passes the object through untouched.
    expect(data!.checkoutSession).toMatchObject({
      environment: 'test',
      mode: 'payment',
      status: 'open',
      customerEmail: 'guest@example.com',
    });
    expect(data!.checkoutSession.url).toMatch(/^https:\/\/checkout\.processor\.test\/pay\/cs_/);
    const sent = s.processor!.get(
      TEST_KEY,
      (data!.checkoutSession as unknown as { processorCheckoutSessionId: string }).processorCheckoutSessionId,
    )!;
    expect(sent.line_items_input).toEqual([{ price: 'price_1', quantity: '2' }]);
  });

  it("createCheckoutSession for the user's own subject uses their mapped customer; idempotent by key", async () => {
    const request = {
      mode: 'subscription' as const,
      lineItems: [{ priceId: 'price_1', quantity: 1 }],
      subject: { type: 'user', id: aliceId },
      idempotencyKey: 'sdk-order-1',
      ...urls,
    };
    const first = await alice.payments.stripe.createCheckoutSession('test', request);
    expect(first.error).toBeNull();
    const again = await alice.payments.stripe.createCheckoutSession('test', request);
    expect(again.data!.checkoutSession.id).toBe(first.data!.checkoutSession.id);
    const sent = s.processor!.get(
      TEST_KEY,
      (first.data!.checkoutSession as unknown as { processorCheckoutSessionId: string }).processorCheckoutSessionId,
    )!;
    expect(sent.customer).toBe('cus_alice');
  });

  it('createCheckoutSession errors come back as InsForgeError', async () => {
    const other = await alice.payments.stripe.createCheckoutSession('test', {
      mode: 'payment',
      lineItems: [{ priceId: 'price_1', quantity: 1 }],
      subject: { type: 'user', id: 'someone-else' },
      ...urls,
    });
    expect(other.data).toBeNull();
    expect(other.error).toMatchObject({ statusCode: 403, error: 'FORBIDDEN' });
    const bad = await alice.payments.stripe.createCheckoutSession('test', { mode: 'payment', lineItems: [], ...urls });
    expect(bad.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
  });

  it('createCustomerPortalSession opens the portal of the caller’s own subject', async () => {
    const { data, error } = await alice.payments.stripe.createCustomerPortalSession('test', {
      subject: { type: 'user', id: aliceId },
      returnUrl: 'https://app.example.com/account',
    });
    expect(error).toBeNull();
    expect(data!.customerPortalSession).toMatchObject({
      status: 'created',
      subjectType: 'user',
      subjectId: aliceId,
      returnUrl: 'https://app.example.com/account',
    });
    expect(data!.customerPortalSession.url).toMatch(/^https:\/\/billing\.processor\.test\/session\/bps_/);

    const anon = await s
      .client()
      .payments.stripe.createCustomerPortalSession('test', { subject: { type: 'user', id: aliceId } });
    expect(anon.error).toMatchObject({ statusCode: 401 });
  });
});
