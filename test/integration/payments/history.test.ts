// Payment history from signed processor events: payments, invoices, failures, refunds and checkout
// payments; replays and out-of-order deliveries never double count or regress; environments apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { deliverEvent, processorEvent, startPaymentsApp, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
});
afterAll(() => p.close());

type Row = Record<string, unknown>;
const subject = (id: string) => ({ svc_subject_type: 'team', svc_subject_id: id });
const card = { brand: 'visa', last4: '4242', country: 'DE' };

async function send(type: string, object: object, options: { created?: number; env?: 'test' | 'live' } = {}) {
  const body = processorEvent(p, type, object, { created: options.created, livemode: options.env === 'live' });
  const res = await deliverEvent(p, body, { env: options.env });
  expect(res.statusCode).toBe(200);
  return { body, res };
}

async function history(query = '', env = 'test', path = 'payment-history'): Promise<Row[]> {
  const res = await p.t.request({ method: 'GET', url: `/api/payments/${env}/${path}${query}`, headers: p.admin });
  expect(res.statusCode).toBe(200);
  return res.json.paymentHistory;
}
const byObject = async (id: string, env = 'test') =>
  (await history('?limit=100', env)).filter((r) =>
    [r.processorPaymentIntentId, r.processorInvoiceId, r.processorRefundId].includes(id),
  );

const intent = (id: string, extra: Row = {}) => ({
  id,
  object: 'payment_intent',
  amount: 1000,
  amount_received: 1000,
  currency: 'eur',
  customer: 'cus_h1',
  receipt_email: 'payer@example.com',
  created: 1_790_000_000,
  metadata: subject('t-1'),
  latest_charge: { id: `ch_${id}`, object: 'charge', payment_method_details: { type: 'card', card } },
  ...extra,
});
const refund = (id: string, pi: string, status: string, amount: number) => ({
  id,
  object: 'refund',
  amount,
  currency: 'eur',
  payment_intent: pi,
  charge: `ch_${pi}`,
  status,
  created: 1_790_000_100,
});
const invoice = (id: string, pi: string | null, extra: Row = {}) => ({
  id,
  object: 'invoice',
  customer: 'cus_h2',
  customer_email: 'sub@example.com',
  currency: 'usd',
  amount_due: 900,
  amount_paid: 900,
  total: 900,
  created: 1_790_000_200,
  parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_h', metadata: subject('t-2') } },
  lines: {
    object: 'list',
    data: [
      { id: 'il_1', description: '1 × Pro', pricing: { price_details: { price: 'price_pro', product: 'prod_pro' } } },
    ],
  },
  payments: { object: 'list', data: pi ? [{ payment: { type: 'payment_intent', payment_intent: pi } }] : [] },
  ...extra,
});

describe('payment history from webhooks', () => {
  it('records a one-time payment once, however often its event is delivered', async () => {
    const { body, res } = await send('payment_intent.succeeded', intent('pi_1'));
    expect(res.json).toMatchObject({ handled: true, event: { processingStatus: 'processed', objectId: 'pi_1' } });
    const replay = await deliverEvent(p, body);
    expect(replay.json).toMatchObject({ handled: false, event: { processingStatus: 'processed' } });
    const rows = await byObject('pi_1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      environment: 'test',
      type: 'one_time_payment',
      status: 'succeeded',
      subjectType: 'team',
      subjectId: 't-1',
      processorCustomerId: 'cus_h1',
      customerEmailSnapshot: 'payer@example.com',
      processorChargeId: 'ch_pi_1',
      amount: 1000,
      amountRefunded: 0,
      currency: 'eur',
      paymentMethodBrand: 'visa',
      paymentMethodLast4: '4242',
      paidAt: p.t.clock
        .now()
        .toISOString()
        .replace(/\.\d{3}Z$/, '.000Z'),
      processorCreatedAt: new Date(1_790_000_000_000).toISOString(),
    });
    expect(rows[0]).not.toHaveProperty('raw');
  });

  it('refunds: pending then succeeded, partial then full; a late older refund state never wins', async () => {
    await send('refund.created', refund('re_1', 'pi_1', 'pending', 300));
    expect((await byObject('pi_1')).map((r) => [r.type, r.status])).toEqual([
      ['refund', 'pending'],
      ['one_time_payment', 'succeeded'],
    ]);
    const now = epochSeconds(p.t.clock.now());
    await send('refund.updated', refund('re_1', 'pi_1', 'succeeded', 300), { created: now + 5 });
    await send('refund.created', refund('re_1', 'pi_1', 'pending', 300), { created: now + 1 }); // late and older
    let rows = await byObject('pi_1');
    expect(rows.find((r) => r.type === 'refund')).toMatchObject({
      status: 'succeeded',
      amount: 300,
      subjectId: 't-1',
      processorRefundId: 're_1',
    });
    expect(rows.find((r) => r.type === 'one_time_payment')).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 300,
    });

    // The charge reports both refunds; re_1 is not counted twice, and replaying changes nothing.
    const charge = {
      id: 'ch_pi_1',
      object: 'charge',
      amount: 1000,
      amount_captured: 1000,
      amount_refunded: 1000,
      currency: 'eur',
      paid: true,
      customer: 'cus_h1',
      payment_intent: 'pi_1',
      created: 1_790_000_000,
      payment_method_details: { card },
      refunds: {
        object: 'list',
        data: [refund('re_1', 'pi_1', 'succeeded', 300), refund('re_2', 'pi_1', 'succeeded', 700)],
      },
    };
    const { body } = await send('charge.refunded', charge, { created: now + 6 });
    await deliverEvent(p, body);
    await send('charge.refunded', charge, { created: now + 7 }); // the same state under another event id
    rows = await byObject('pi_1');
    expect(
      rows
        .filter((r) => r.type === 'refund')
        .map((r) => [r.processorRefundId, r.status, r.amount])
        .sort(),
    ).toEqual([
      ['re_1', 'succeeded', 300],
      ['re_2', 'succeeded', 700],
    ]);
    expect(rows.find((r) => r.type === 'one_time_payment')).toMatchObject({
      status: 'refunded',
      amountRefunded: 1000,
      amount: 1000,
    });
  });

  it('a refund that arrives before its payment is counted when the payment arrives', async () => {
    await send('refund.updated', refund('re_3', 'pi_2', 'succeeded', 250));
    await send('refund.failed', refund('re_4', 'pi_2', 'failed', 100));
    await send('payment_intent.succeeded', intent('pi_2', { metadata: subject('t-3') }));
    const rows = await byObject('pi_2');
    expect(rows.find((r) => r.type === 'one_time_payment')).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 250,
      subjectId: 't-3',
    });
    expect(rows.find((r) => r.processorRefundId === 're_4')).toMatchObject({ type: 'refund', status: 'failed' });
    // The refunds take the payment's subject and customer, so the subject filter finds them.
    expect(
      (await history('?subjectType=team&subjectId=t-3')).map((r) => [r.type, r.processorCustomerId]).sort(),
    ).toEqual([
      ['one_time_payment', 'cus_h1'],
      ['refund', 'cus_h1'],
      ['refund', 'cus_h1'],
    ]);
  });

  it('a refunded charge with no earlier event records its payment as refunded, once', async () => {
    const charge = {
      id: 'ch_only',
      object: 'charge',
      amount: 800,
      amount_captured: 800,
      amount_refunded: 800,
      currency: 'gbp',
      paid: true,
      customer: 'cus_h3',
      payment_intent: 'pi_only',
      created: 1_790_000_050,
      billing_details: { email: 'c@example.com', address: { country: 'GB' } },
      payment_method_details: { card: { brand: 'amex', last4: '0005', country: null } },
      refunds: { object: 'list', data: [] },
    };
    await send('charge.refunded', charge);
    await send(
      'payment_intent.succeeded',
      intent('pi_only', {
        amount: 800,
        amount_received: 800,
        currency: 'gbp',
        customer: 'cus_h3',
        metadata: {},
        latest_charge: 'ch_only',
        receipt_email: null,
      }),
    );
    const rows = await byObject('pi_only');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'one_time_payment',
      status: 'refunded',
      amount: 800,
      amountRefunded: 800,
      processorChargeId: 'ch_only',
      customerEmailSnapshot: 'c@example.com',
      paymentMethodBrand: 'amex',
      paymentMethodLast4: '0005',
    });
  });

  it('a failed payment becomes a payment when it succeeds, and a late failure does not undo it', async () => {
    const now = epochSeconds(p.t.clock.now());
    const failing = intent('pi_3', {
      amount_received: 0,
      last_payment_error: { message: 'Your card was declined.', payment_method: { card } },
    });
    await send('payment_intent.payment_failed', failing, { created: now });
    expect((await byObject('pi_3'))[0]).toMatchObject({
      type: 'failed_payment',
      status: 'failed',
      failureMessage: 'Your card was declined.',
      amount: 1000,
    });
    await send('payment_intent.succeeded', intent('pi_3'), { created: now + 10 });
    await send('payment_intent.payment_failed', failing, { created: now + 5 });
    const rows = await byObject('pi_3');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'one_time_payment',
      status: 'succeeded',
      failureMessage: null,
      amount: 1000,
    });
    expect(rows[0]!.failedAt).not.toBeNull();
  });

  it('subscription invoices: a failure then the payment; its payment intent never counts twice, in either order', async () => {
    await send('invoice.payment_failed', invoice('in_1', 'pi_in1'));
    expect((await byObject('in_1'))[0]).toMatchObject({ type: 'failed_payment', status: 'failed', amount: 900 });
    await send('invoice.paid', invoice('in_1', 'pi_in1'));
    await send(
      'payment_intent.succeeded',
      intent('pi_in1', { amount: 900, amount_received: 900, currency: 'usd', customer: 'cus_h2', metadata: {} }),
    );
    let rows = await byObject('pi_in1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'subscription_invoice',
      status: 'succeeded',
      processorInvoiceId: 'in_1',
      processorPaymentIntentId: 'pi_in1',
      processorSubscriptionId: 'sub_h',
      processorPriceId: 'price_pro',
      processorProductId: 'prod_pro',
      subjectType: 'team',
      subjectId: 't-2',
      amount: 900,
      currency: 'usd',
      description: '1 × Pro',
      paymentMethodLast4: '4242',
    });

    // The payment intent first (newer API: it does not name its invoice), then the invoice.
    await send(
      'payment_intent.succeeded',
      intent('pi_in2', { amount: 900, amount_received: 900, currency: 'usd', customer: 'cus_h2', metadata: {} }),
    );
    await send('invoice.paid', invoice('in_2', 'pi_in2'));
    rows = await byObject('pi_in2');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'subscription_invoice',
      processorInvoiceId: 'in_2',
      subjectId: 't-2',
      paymentMethodBrand: 'visa',
    });

    // Older API: the payment intent names its invoice.
    await send(
      'payment_intent.succeeded',
      intent('pi_in3', { invoice: 'in_3', amount_received: 900, currency: 'usd', customer: 'cus_h2', metadata: {} }),
    );
    await send('invoice.paid', invoice('in_3', null, { payment_intent: 'pi_in3' }));
    expect(await byObject('in_3')).toHaveLength(1);
  });

  it('checkout payments: completed but unpaid is pending until the delayed payment succeeds or fails', async () => {
    const session = (id: string, pi: string, status: string) => ({
      id,
      object: 'checkout.session',
      mode: 'payment',
      payment_intent: pi,
      payment_status: status,
      status: 'complete',
      amount_total: 4200,
      currency: 'eur',
      customer: null,
      customer_details: { email: 'guest@example.com' },
      created: 1_790_000_300,
      client_reference_id: null,
      metadata: {},
    });
    await send('checkout.session.completed', session('cs_1', 'pi_cs1', 'unpaid'));
    expect((await byObject('pi_cs1'))[0]).toMatchObject({
      type: 'one_time_payment',
      status: 'pending',
      processorCheckoutSessionId: 'cs_1',
      customerEmailSnapshot: 'guest@example.com',
    });
    await send('checkout.session.async_payment_succeeded', session('cs_1', 'pi_cs1', 'paid'));
    await send(
      'payment_intent.succeeded',
      intent('pi_cs1', { amount: 4200, amount_received: 4200, customer: null, metadata: {} }),
    );
    const rows = await byObject('pi_cs1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'succeeded', amount: 4200, processorCheckoutSessionId: 'cs_1' });

    await send('checkout.session.async_payment_failed', session('cs_2', 'pi_cs2', 'unpaid'));
    expect((await byObject('pi_cs2'))[0]).toMatchObject({ type: 'failed_payment', status: 'failed' });
    const expired = await send('checkout.session.expired', {
      ...session('cs_3', 'pi_cs3', 'unpaid'),
      status: 'expired',
    });
    expect(expired.res.json.handled).toBe(true);
    expect(await byObject('pi_cs3')).toEqual([]);
  });

  it('keeps the environments apart', async () => {
    await send('payment_intent.succeeded', { ...intent('pi_1'), livemode: true, amount_received: 5 }, { env: 'live' });
    expect(await byObject('pi_1', 'live')).toMatchObject([{ environment: 'live', amount: 5, status: 'succeeded' }]);
    expect((await byObject('pi_1')).find((r) => r.type === 'one_time_payment')).toMatchObject({
      environment: 'test',
      amount: 1000,
      status: 'refunded',
    });
    const [row] = await p.t.deps
      .sql`select count(*)::int as n from payments.payment_history where environment = 'live'`;
    expect(row!.n).toBe(1);
  });
});

describe('GET payment-history', () => {
  it('lists newest first, filters by subject, limits, and answers the same at /transactions and under /stripe', async () => {
    const all = await history('?limit=100');
    const times = all.map((r) => Date.parse((r.processorCreatedAt ?? r.createdAt) as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const team = await history('?subjectType=team&subjectId=t-2');
    expect(team.length).toBeGreaterThan(0);
    expect(team.every((r) => r.subjectId === 't-2')).toBe(true);
    expect(await history('?limit=2')).toHaveLength(2);
    expect(await history('?limit=50')).toEqual(await history());
    expect(await history('?limit=100', 'test', 'transactions')).toEqual(all);
    expect(await history('?limit=100', 'stripe/test', 'transactions')).toEqual(all);
    expect(await history('?limit=100', 'stripe/test')).toEqual(all);
  });

  it.each([
    'subjectType=team',
    'subjectId=t-1',
    `subjectType=${'t'.repeat(101)}&subjectId=x`,
    `subjectType=t&subjectId=${'i'.repeat(256)}`,
    'limit=0',
    'limit=101',
    'limit=1.5',
    'other=1',
  ])('?%s → 400 on both paths', async (query) => {
    for (const path of ['payment-history', 'transactions']) {
      const res = await p.t.request({ method: 'GET', url: `/api/payments/test/${path}?${query}`, headers: p.admin });
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
    }
  });

  it('rejects an unknown environment', async () => {
    const res = await p.t.request({ method: 'GET', url: '/api/payments/staging/payment-history', headers: p.admin });
    expect(res.statusCode).toBe(400);
  });
});

describe('payment history from sync', () => {
  it('reads invoices, payment intents and refunds from the processor, idempotently, without double counting', async () => {
    p.peer.put(TEST_KEY, invoice('in_s1', 'pi_s1', { status: 'paid' }));
    p.peer.put(TEST_KEY, {
      ...intent('pi_s1', { amount: 900, amount_received: 900, metadata: {} }),
      status: 'succeeded',
    });
    p.peer.put(TEST_KEY, { ...intent('pi_s2', { latest_charge: 'ch_pi_s2' }), status: 'succeeded' });
    p.peer.put(TEST_KEY, {
      ...intent('pi_s3', { amount_received: 0, last_payment_error: { message: 'Insufficient funds.' } }),
      status: 'requires_payment_method',
    });
    p.peer.put(TEST_KEY, { ...intent('pi_s4'), status: 'requires_payment_method', last_payment_error: null });
    p.peer.put(TEST_KEY, invoice('in_s2', null, { status: 'draft' }));
    p.peer.put(TEST_KEY, refund('re_s1', 'pi_s2', 'succeeded', 100));

    const first = await p.t.request({ method: 'POST', url: '/api/payments/test/sync', headers: p.admin });
    expect(first.statusCode).toBe(200);
    expect(first.json.results[0].connection.lastSyncCounts).toMatchObject({ paymentHistory: 5 }); // processor objects read into it (pi_s1 is in_s1's payment)
    const after = await history('?limit=100');
    const second = await p.t.request({ method: 'POST', url: '/api/payments/test/sync', headers: p.admin });
    expect(second.statusCode).toBe(200);
    expect((await history('?limit=100')).map(({ updatedAt: _u, ...r }) => r)).toEqual(
      after.map(({ updatedAt: _u, ...r }) => r),
    );

    expect(await byObject('pi_s1')).toMatchObject([
      { type: 'subscription_invoice', status: 'succeeded', processorInvoiceId: 'in_s1', amount: 900 },
    ]);
    const s2 = await byObject('pi_s2');
    expect(s2.find((r) => r.type === 'one_time_payment')).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 100,
    });
    expect(s2.filter((r) => r.type === 'refund')).toMatchObject([
      { processorRefundId: 're_s1', status: 'succeeded', amount: 100 },
    ]);
    expect(await byObject('pi_s3')).toMatchObject([
      { type: 'failed_payment', status: 'failed', failureMessage: 'Insufficient funds.' },
    ]);
    expect(await byObject('pi_s4')).toEqual([]);
    expect(await byObject('in_s2')).toEqual([]);

    // A webhook about an older state of a refund the sync already saw changes nothing.
    await send('refund.created', refund('re_s1', 'pi_s2', 'pending', 100), {
      created: epochSeconds(p.t.clock.now()) - 60,
    });
    expect((await byObject('re_s1'))[0]).toMatchObject({ status: 'succeeded' });
  });
});

// Last: creating the managed endpoint replaces the webhook secret the tests above sign with.
describe('managed webhook endpoint', () => {
  it('the managed webhook endpoint subscribes to the 20 managed events', async () => {
    const res = await p.t.request({ method: 'POST', url: '/api/payments/test/webhook', headers: p.admin });
    const events = p.peer.get(TEST_KEY, res.json.connection.webhookEndpointId)!.enabled_events as string[];
    expect(events).toHaveLength(20);
    expect(events).toEqual(
      expect.arrayContaining([
        'invoice.paid',
        'invoice.payment_failed',
        'payment_intent.succeeded',
        'payment_intent.payment_failed',
        'charge.refunded',
        'refund.created',
        'refund.updated',
        'refund.failed',
        'checkout.session.async_payment_succeeded',
        'checkout.session.async_payment_failed',
        'checkout.session.expired',
      ]),
    );
  });
});
