// The admin's customer list: mirrored customers (from sync and webhooks) with what their payment
// history says they paid, their latest card and country; limits, validation, environments apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import {
  deliverEvent,
  LIVE_KEY,
  processorEvent,
  startPaymentsApp,
  TEST_KEY,
  type PaymentsApp,
} from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
});
afterAll(() => p.close());

type Customer = Record<string, unknown>;
async function customers(query = '', env = 'test'): Promise<Customer[]> {
  const res = await p.t.request({ method: 'GET', url: `/api/payments/${env}/customers${query}`, headers: p.admin });
  expect(res.statusCode).toBe(200);
  return res.json.customers;
}

async function send(type: string, object: object, created = epochSeconds(p.t.clock.now())) {
  const res = await deliverEvent(p, processorEvent(p, type, object, { created }));
  expect(res.json.handled).toBe(true);
}

const paid = (id: string, customer: string, amount: number, currency: string, last4: string) => ({
  id,
  object: 'payment_intent',
  amount,
  amount_received: amount,
  currency,
  customer,
  created: 1_790_000_000,
  metadata: {},
  latest_charge: {
    id: `ch_${id}`,
    object: 'charge',
    payment_method_details: { card: { brand: 'mastercard', last4, country: 'FR' } },
  },
});

describe('GET customers', () => {
  it('lists mirrored customers with their payment count, last payment, net spend, card and country', async () => {
    p.peer.put(TEST_KEY, {
      id: 'cus_a',
      object: 'customer',
      email: 'a@example.com',
      name: 'Ann',
      address: { country: 'nl' },
      metadata: { svc_subject_type: 'team', svc_subject_id: 'team-a' },
    });
    p.peer.put(TEST_KEY, { id: 'cus_b', object: 'customer', email: 'b@example.com', name: 'Bob' });
    p.peer.put(LIVE_KEY, { id: 'cus_a', object: 'customer', email: 'live@example.com', name: 'Live' });
    expect((await p.t.request({ method: 'POST', url: '/api/payments/sync', headers: p.admin })).statusCode).toBe(200);

    const before = await customers();
    expect(before).toHaveLength(2);
    expect(before.find((c) => c.processorCustomerId === 'cus_b')).toEqual({
      environment: 'test',
      processorCustomerId: 'cus_b',
      email: 'b@example.com',
      name: 'Bob',
      subjectType: null,
      subjectId: null,
      metadata: {},
      syncedAt: expect.any(String),
      paymentsCount: 0,
      lastPaymentAt: null,
      totalSpend: 0,
      totalSpendCurrency: null,
      paymentMethodBrand: null,
      paymentMethodLast4: null,
      countryCode: null,
    });

    const t0 = epochSeconds(p.t.clock.now());
    await send('payment_intent.succeeded', paid('pi_a1', 'cus_a', 1000, 'eur', '1111'), t0);
    p.t.clock.advance(60_000);
    await send('payment_intent.succeeded', paid('pi_a2', 'cus_a', 2500, 'eur', '2222'), t0 + 60);
    await send(
      'payment_intent.payment_failed',
      { ...paid('pi_a3', 'cus_a', 9999, 'eur', '3333'), amount_received: 0 },
      t0 + 61,
    );
    await send(
      'refund.updated',
      {
        id: 're_a',
        object: 'refund',
        amount: 500,
        currency: 'eur',
        payment_intent: 'pi_a2',
        charge: 'ch_pi_a2',
        status: 'succeeded',
      },
      t0 + 62,
    );
    p.t.clock.advance(60_000);
    await send('payment_intent.succeeded', paid('pi_b1', 'cus_b', 300, 'usd', '4444'), t0 + 120);

    const list = await customers();
    // Latest payer first.
    expect(list.map((c) => c.processorCustomerId)).toEqual(['cus_b', 'cus_a']);
    expect(list[1]).toMatchObject({
      processorCustomerId: 'cus_a',
      subjectType: 'team',
      subjectId: 'team-a',
      paymentsCount: 2,
      lastPaymentAt: new Date((t0 + 60) * 1000).toISOString(),
      totalSpend: 3000,
      totalSpendCurrency: 'eur',
      paymentMethodBrand: 'mastercard',
      paymentMethodLast4: '3333',
      countryCode: 'NL',
    });
    expect(list[0]).toMatchObject({
      paymentsCount: 1,
      totalSpend: 300,
      totalSpendCurrency: 'usd',
      paymentMethodLast4: '4444',
      countryCode: 'FR',
    });
    expect(await customers('?limit=1')).toHaveLength(1);

    const live = await customers('', 'live');
    expect(live).toEqual([
      expect.objectContaining({
        environment: 'live',
        processorCustomerId: 'cus_a',
        email: 'live@example.com',
        paymentsCount: 0,
        totalSpend: 0,
      }),
    ]);
  });

  it('follows customer webhooks: new customers appear, deleted ones leave', async () => {
    await send('customer.created', {
      id: 'cus_c',
      object: 'customer',
      email: 'c@example.com',
      name: null,
      metadata: {},
    });
    expect((await customers('?limit=100')).map((c) => c.processorCustomerId)).toContain('cus_c');
    await send('customer.deleted', { id: 'cus_c', object: 'customer', deleted: true });
    expect((await customers('?limit=100')).map((c) => c.processorCustomerId)).not.toContain('cus_c');
  });

  it('is served under /api/payments/stripe too', async () => {
    const res = await p.t.request({ method: 'GET', url: '/api/payments/stripe/test/customers', headers: p.admin });
    expect(res.json.customers).toEqual(await customers());
  });

  it.each(['limit=0', 'limit=101', 'limit=x', 'subjectType=team&subjectId=a', 'other=1'])(
    '?%s → 400',
    async (query) => {
      const res = await p.t.request({ method: 'GET', url: `/api/payments/test/customers?${query}`, headers: p.admin });
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
    },
  );

  it('accepts limit 100 and 1', async () => {
    expect(
      (await p.t.request({ method: 'GET', url: '/api/payments/test/customers?limit=100', headers: p.admin }))
        .statusCode,
    ).toBe(200);
    expect(await customers('?limit=1')).toHaveLength(1);
  });
});
