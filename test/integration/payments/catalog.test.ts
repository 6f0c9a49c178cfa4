// Products and prices: written to the processor through its SDK, mirrored locally only after it
// answered, environments apart, idempotency keys namespaced, every validation limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_KEY, startPaymentsApp, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
});
afterAll(() => p.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  p.t.request({ method, url, headers: p.admin, payload });

describe('products', () => {
  it('creates a product at the processor and mirrors it', async () => {
    const res = await call('POST', '/api/payments/test/catalog/products', {
      name: ' Pro plan ',
      description: 'All features',
      metadata: { tier: 'pro' },
    });
    expect(res.statusCode).toBe(201);
    const { product } = res.json;
    expect(product).toMatchObject({
      environment: 'test',
      name: 'Pro plan',
      description: 'All features',
      active: true,
      defaultPriceId: null,
      metadata: { tier: 'pro' },
    });
    expect(product.processorProductId).toMatch(/^prod_/);
    expect(new Date(product.syncedAt).toISOString()).toBe(product.syncedAt);
    expect(p.peer.get(TEST_KEY, product.processorProductId)?.name).toBe('Pro plan');

    const got = await call('GET', `/api/payments/test/catalog/products/${product.processorProductId}`);
    expect(got.json).toEqual({ product, prices: [] });
    // The live environment is another processor account and another mirror.
    expect((await call('GET', '/api/payments/live/catalog/products')).json).toEqual({ products: [] });
    expect(p.peer.get(LIVE_KEY, product.processorProductId)).toBeUndefined();
    expect((await call('GET', `/api/payments/live/catalog/products/${product.processorProductId}`)).json.error).toBe(
      'PAYMENT_PRODUCT_NOT_FOUND',
    );
  });

  it('passes idempotency keys namespaced per environment and operation; a retry gives the same product', async () => {
    const body = { name: 'Idem', idempotencyKey: 'k-1' };
    const first = await call('POST', '/api/payments/test/catalog/products', body);
    const second = await call('POST', '/api/payments/test/catalog/products', body);
    const live = await call('POST', '/api/payments/live/catalog/products', body);
    expect(second.json.product.processorProductId).toBe(first.json.product.processorProductId);
    expect(live.json.product.processorProductId).not.toBe(first.json.product.processorProductId);
    const keys = p.peer.requests
      .filter((r) => r.path === '/v1/products' && r.method === 'POST' && r.params.name === 'Idem')
      .map((r) => r.idempotencyKey);
    expect(keys).toEqual([
      'svc:test:products.create:k-1',
      'svc:test:products.create:k-1',
      'svc:live:products.create:k-1',
    ]);
    const list = await call('GET', '/api/payments/test/catalog/products');
    expect(list.json.products.filter((x: { name: string }) => x.name === 'Idem')).toHaveLength(1);
  });

  it('updates and deletes through the processor', async () => {
    const { json } = await call('POST', '/api/payments/test/catalog/products', { name: 'Temp', description: 'd' });
    const id = json.product.processorProductId;
    const patched = await call('PATCH', `/api/payments/test/catalog/products/${id}`, {
      name: 'Temp 2',
      description: null,
      active: false,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json.product).toMatchObject({ name: 'Temp 2', description: null, active: false });
    const del = await call('DELETE', `/api/payments/test/catalog/products/${id}`);
    expect(del.json).toEqual({ processorProductId: id, deleted: true });
    expect((await call('GET', `/api/payments/test/catalog/products/${id}`)).statusCode).toBe(404);
    const missing = await call('PATCH', '/api/payments/test/catalog/products/prod_missing', { name: 'x' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json.error).toBe('PAYMENT_PRODUCT_NOT_FOUND');
  });

  it('a processor failure leaves the mirror unchanged and answers 502', async () => {
    const { json } = await call('POST', '/api/payments/test/catalog/products', { name: 'Stable' });
    const id = json.product.processorProductId;
    const before = (await call('GET', '/api/payments/test/catalog')).json;
    p.peer.failNext(1, '/v1/products');
    const failed = await call('PATCH', `/api/payments/test/catalog/products/${id}`, { name: 'Changed' });
    expect(failed.statusCode).toBe(502);
    expect(failed.json).toMatchObject({ error: 'UPSTREAM_FAILURE', statusCode: 502 });
    p.peer.failNext(1, '/v1/products');
    expect((await call('POST', '/api/payments/test/catalog/products', { name: 'Never' })).statusCode).toBe(502);
    expect((await call('GET', '/api/payments/test/catalog')).json).toEqual(before);
  });

  const longName = 'x'.repeat(5001);
  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'a', description: longName }, 'description ≤ 5000'],
    [{ name: 'a', idempotencyKey: '' }, 'idempotencyKey ≥ 1'],
    [{ name: 'a', idempotencyKey: 'k'.repeat(201) }, 'idempotencyKey ≤ 200'],
    [{ name: 'a', active: 'yes' }, 'active boolean'],
    [{ name: 'a', metadata: { n: 1 } }, 'metadata strings'],
    [{ name: 'a', unknown: 1 }, 'strict'],
  ])('POST product %j → 400 (%s)', async (body, _rule) => {
    const res = await call('POST', '/api/payments/test/catalog/products', body);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('accepts the limits themselves', async () => {
    const res = await call('POST', '/api/payments/test/catalog/products', {
      name: 'a',
      description: 'd'.repeat(5000),
      idempotencyKey: 'k'.repeat(200),
    });
    expect(res.statusCode).toBe(201);
    expect(
      (await call('PATCH', `/api/payments/test/catalog/products/${res.json.product.processorProductId}`, {}))
        .statusCode,
    ).toBe(400);
    expect((await call('GET', '/api/payments/staging/catalog/products')).statusCode).toBe(400);
    expect((await call('GET', '/api/payments/test/catalog/products?x=1')).statusCode).toBe(400);
  });

  it("serves the same routes under /api/payments/stripe/ (the official client's path)", async () => {
    const direct = await call('GET', '/api/payments/test/catalog/products');
    const alias = await call('GET', '/api/payments/stripe/test/catalog/products');
    expect(alias.statusCode).toBe(200);
    expect(alias.json).toEqual(direct.json);
    expect((await call('GET', '/api/payments/stripe/status')).json).toEqual(
      (await call('GET', '/api/payments/status')).json,
    );
  });
});

describe('prices', () => {
  let productId = '';
  beforeAll(async () => {
    productId = (await call('POST', '/api/payments/test/catalog/products', { name: 'Priced' })).json.product
      .processorProductId;
  });

  it('creates recurring and one-time prices, lists them by product, gets one', async () => {
    const monthly = await call('POST', '/api/payments/test/catalog/prices', {
      processorProductId: productId,
      currency: 'EUR',
      unitAmount: 1200,
      recurring: { interval: 'month', intervalCount: 3 },
      lookupKey: 'pro-quarterly',
      taxBehavior: 'exclusive',
      metadata: { plan: 'pro' },
    });
    expect(monthly.statusCode).toBe(201);
    expect(monthly.json.price).toMatchObject({
      environment: 'test',
      processorProductId: productId,
      currency: 'eur',
      unitAmount: 1200,
      type: 'recurring',
      recurringInterval: 'month',
      recurringIntervalCount: 3,
      lookupKey: 'pro-quarterly',
      taxBehavior: 'exclusive',
      active: true,
      metadata: { plan: 'pro' },
    });
    const once = await call('POST', '/api/payments/test/catalog/prices', {
      processorProductId: productId,
      currency: 'usd',
      unitAmount: 0,
    });
    expect(once.json.price).toMatchObject({
      type: 'one_time',
      recurringInterval: null,
      unitAmount: 0,
      lookupKey: null,
    });

    const list = await call('GET', `/api/payments/test/catalog/prices?processorProductId=${productId}`);
    expect(list.json.prices).toHaveLength(2);
    const got = await call('GET', `/api/payments/test/catalog/prices/${monthly.json.price.processorPriceId}`);
    expect(got.json).toEqual({ price: monthly.json.price });
    const product = await call('GET', `/api/payments/test/catalog/products/${productId}`);
    expect(product.json.prices).toHaveLength(2);
  });

  it('updates and archives a price; an unknown one is 404', async () => {
    const { json } = await call('POST', '/api/payments/test/catalog/prices', {
      processorProductId: productId,
      currency: 'usd',
      unitAmount: 5,
      lookupKey: 'old',
    });
    const id = json.price.processorPriceId;
    const patched = await call('PATCH', `/api/payments/test/catalog/prices/${id}`, {
      lookupKey: null,
      taxBehavior: 'inclusive',
      metadata: { a: 'b' },
    });
    expect(patched.json.price).toMatchObject({ lookupKey: null, taxBehavior: 'inclusive', metadata: { a: 'b' } });
    const archived = await call('DELETE', `/api/payments/test/catalog/prices/${id}`);
    expect(archived.json).toMatchObject({ archived: true, price: { processorPriceId: id, active: false } });
    for (const [method, url] of [
      ['GET', '/api/payments/test/catalog/prices/price_missing'],
      ['PATCH', '/api/payments/test/catalog/prices/price_missing'],
    ] as const) {
      const res = await call(method, url, method === 'PATCH' ? { active: true } : undefined);
      expect(res.statusCode).toBe(404);
      expect(res.json.error).toBe('PAYMENT_PRICE_NOT_FOUND');
    }
  });

  it('a product with prices cannot be deleted: the processor refuses (400) and the mirror keeps it', async () => {
    const res = await call('DELETE', `/api/payments/test/catalog/products/${productId}`);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.message).toContain('has one or more user-created prices');
    expect((await call('GET', `/api/payments/test/catalog/products/${productId}`)).statusCode).toBe(200);
  });

  it('a price for a product the processor does not know is a 400 from the processor', async () => {
    const res = await call('POST', '/api/payments/test/catalog/prices', {
      processorProductId: 'prod_nope',
      currency: 'usd',
      unitAmount: 1,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
    expect(res.json.message).toContain('No such product');
  });

  const base = () => ({ processorProductId: productId, currency: 'usd', unitAmount: 1 });
  it.each([
    [{ currency: 'us' }],
    [{ currency: 'usdd' }],
    [{ unitAmount: -1 }],
    [{ unitAmount: 1.5 }],
    [{ lookupKey: '' }],
    [{ lookupKey: 'l'.repeat(201) }],
    [{ taxBehavior: 'sometimes' }],
    [{ recurring: { interval: 'hour' } }],
    [{ recurring: { interval: 'month', intervalCount: 0 } }],
    [{ idempotencyKey: 'k'.repeat(201) }],
    [{ processorProductId: ' ' }],
  ])('POST price with %j → 400', async (change) => {
    const res = await call('POST', '/api/payments/test/catalog/prices', { ...base(), ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it.each([[{}], [{ lookupKey: '' }], [{ lookupKey: 'l'.repeat(201) }], [{ taxBehavior: 'x' }], [{ currency: 'usd' }]])(
    'PATCH price with %j → 400',
    async (body) => {
      const res = await call('PATCH', '/api/payments/test/catalog/prices/price_any', body);
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
    },
  );

  it('accepts lookupKey of 200 characters', async () => {
    const res = await call('POST', '/api/payments/test/catalog/prices', {
      ...base(),
      lookupKey: 'l'.repeat(200),
      idempotencyKey: 'k'.repeat(200),
    });
    expect(res.statusCode).toBe(201);
  });
});
