// Sync from the processor into the mirror (idempotent, all-or-nothing) and the subscriptions
// list with its subject filter, limit and validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_KEY, startPaymentsApp, subscriptionObject, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
});
afterAll(() => p.close());

const call = (method: 'GET' | 'POST', url: string) => p.t.request({ method, url, headers: p.admin });

describe('sync and subscriptions', () => {
  it('pulls products, prices, customers and subscriptions into the mirror, idempotently', async () => {
    p.peer.put(TEST_KEY, {
      id: 'prod_pro',
      object: 'product',
      name: 'Pro',
      description: null,
      active: true,
      default_price: null,
    });
    p.peer.put(TEST_KEY, {
      id: 'price_pro',
      object: 'price',
      product: 'prod_pro',
      currency: 'usd',
      unit_amount: 900,
      active: true,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    });
    p.peer.put(TEST_KEY, {
      id: 'cus_alice',
      object: 'customer',
      email: 'alice@example.com',
      name: 'Alice',
      metadata: { svc_subject_type: 'team', svc_subject_id: 'team-1' },
    });
    p.peer.put(TEST_KEY, { id: 'cus_anon', object: 'customer', email: null, name: null });
    p.peer.put(TEST_KEY, subscriptionObject('sub_a', 'cus_alice', 'active'));
    p.peer.put(TEST_KEY, subscriptionObject('sub_b', 'cus_anon', 'trialing'));

    const first = await call('POST', '/api/payments/test/sync');
    expect(first.statusCode).toBe(200);
    expect(first.json.results).toHaveLength(1);
    expect(first.json.results[0]).toMatchObject({
      environment: 'test',
      connection: {
        environment: 'test',
        status: 'connected',
        lastSyncStatus: 'succeeded',
        lastSyncCounts: { products: 1, prices: 1, customers: 2, subscriptions: 2 },
      },
      subscriptions: { environment: 'test', synced: 2, unmapped: 1, deleted: 0 },
    });
    const second = await call('POST', '/api/payments/test/sync');
    expect(second.json.results[0].subscriptions).toEqual(first.json.results[0].subscriptions);

    const list = await call('GET', '/api/payments/test/subscriptions');
    expect(list.json.subscriptions).toHaveLength(2);
    const alice = await call('GET', '/api/payments/test/subscriptions?subjectType=team&subjectId=team-1');
    expect(alice.json.subscriptions).toHaveLength(1);
    expect(alice.json.subscriptions[0]).toMatchObject({
      environment: 'test',
      processorSubscriptionId: 'sub_a',
      processorCustomerId: 'cus_alice',
      subjectType: 'team',
      subjectId: 'team-1',
      status: 'active',
      currentPeriodStart: new Date(1_790_000_000_000).toISOString(),
      latestInvoiceId: 'in_1',
      items: [
        {
          processorSubscriptionItemId: 'si_sub_a',
          processorPriceId: 'price_pro',
          processorProductId: 'prod_pro',
          quantity: 2,
        },
      ],
    });
    const catalog = await call('GET', '/api/payments/test/catalog');
    expect(catalog.json.products.map((x: { processorProductId: string }) => x.processorProductId)).toEqual([
      'prod_pro',
    ]);
    expect((await call('GET', '/api/payments/live/subscriptions')).json.subscriptions).toEqual([]);
  });

  it('removes what the processor no longer has, and the subject mappings of removed customers', async () => {
    p.peer.remove(TEST_KEY, 'sub_b');
    p.peer.put(TEST_KEY, {
      id: 'cus_gone',
      object: 'customer',
      email: null,
      name: null,
      metadata: { svc_subject_type: 'team', svc_subject_id: 'gone' },
    });
    const res = await call('POST', '/api/payments/test/sync');
    expect(res.json.results[0].subscriptions).toMatchObject({ synced: 1, deleted: 1 });
    expect((await call('GET', '/api/payments/test/subscriptions')).json.subscriptions).toHaveLength(1);
    expect(await p.t.deps.sql`select 1 from payments.customer_mappings where subject_id = 'gone'`).toHaveLength(1);
    p.peer.remove(TEST_KEY, 'cus_gone');
    await call('POST', '/api/payments/test/sync');
    expect(await p.t.deps.sql`select 1 from payments.customer_mappings where subject_id = 'gone'`).toHaveLength(0);
    expect(await p.t.deps.sql`select 1 from payments.customer_mappings where subject_id = 'team-1'`).toHaveLength(1);
  });

  it('a processor failure during sync leaves the mirror as it was: 502 for one environment, reported for all', async () => {
    const before = (await call('GET', '/api/payments/test/subscriptions')).json;
    p.peer.put(TEST_KEY, subscriptionObject('sub_c', 'cus_alice', 'active'));
    p.peer.failNext(1, '/v1/subscriptions');
    const res = await call('POST', '/api/payments/test/sync');
    expect(res.statusCode).toBe(502);
    expect(res.json.error).toBe('UPSTREAM_FAILURE');
    expect((await call('GET', '/api/payments/test/subscriptions')).json).toEqual(before);
    const status = await call('GET', '/api/payments/status');
    expect(status.json.connections[0]).toMatchObject({ lastSyncStatus: 'failed' });

    p.peer.put(LIVE_KEY, { id: 'cus_live', object: 'customer', email: null, name: null });
    p.peer.failNext(1, '/v1/subscriptions');
    const all = await call('POST', '/api/payments/sync');
    expect(all.statusCode).toBe(200);
    expect(
      all.json.results.map((r: { environment: string; subscriptions: unknown }) => [
        r.environment,
        r.subscriptions === null,
      ]),
    ).toEqual([
      ['test', true],
      ['live', false],
    ]);
    expect(all.json.results[0].connection.lastSyncStatus).toBe('failed');
  });

  it('limits the list', async () => {
    await call('POST', '/api/payments/test/sync');
    expect((await call('GET', '/api/payments/test/subscriptions?limit=1')).json.subscriptions).toHaveLength(1);
    expect((await call('GET', '/api/payments/test/subscriptions?limit=100')).json.subscriptions).toHaveLength(2);
  });

  it.each([
    'subjectType=team',
    'subjectId=team-1',
    `subjectType=${'t'.repeat(101)}&subjectId=x`,
    `subjectType=t&subjectId=${'i'.repeat(256)}`,
    'subjectType=&subjectId=x',
    'subjectType=t&subjectId=',
    'limit=0',
    'limit=101',
    'limit=abc',
    'other=1',
  ])('GET subscriptions?%s → 400', async (query) => {
    const res = await call('GET', `/api/payments/test/subscriptions?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('accepts the longest subject', async () => {
    const res = await call(
      'GET',
      `/api/payments/test/subscriptions?subjectType=${'t'.repeat(100)}&subjectId=${'i'.repeat(255)}`,
    );
    expect(res.statusCode).toBe(200);
  });
});
