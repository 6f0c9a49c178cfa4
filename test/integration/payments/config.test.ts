// Processor keys per environment: validated against the processor, stored sealed as reserved
// secrets, shown masked, removed; status of each connection.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { LIVE_KEY, startPaymentsApp, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
beforeAll(async () => {
  p = await startPaymentsApp();
});
afterAll(() => p.close());

const put = (env: string, payload: unknown) =>
  p.t.request({ method: 'PUT', url: `/api/payments/${env}/config`, headers: p.admin, payload: payload as object });

describe('processor configuration', () => {
  it('starts unconfigured, and catalog calls say how to configure', async () => {
    const keys = await p.t.request({ method: 'GET', url: '/api/payments/config', headers: p.admin });
    expect(keys.json).toEqual({
      keys: [
        { environment: 'test', hasKey: false, maskedKey: null },
        { environment: 'live', hasKey: false, maskedKey: null },
      ],
    });
    const create = await p.t.request({
      method: 'POST',
      url: '/api/payments/test/catalog/products',
      headers: p.admin,
      payload: { name: 'X' },
    });
    expect(create.statusCode).toBe(400);
    expect(create.json).toMatchObject({
      error: 'PAYMENT_CONFIG_INVALID',
      message: 'PROCESSOR_TEST_SECRET_KEY is not configured.',
    });
    expect(create.json.nextActions).toContain('PUT /api/payments/test/config');
  });

  it.each([
    ['test', { secretKey: LIVE_KEY }, 'PAYMENT_CONFIG_INVALID'],
    ['live', { secretKey: TEST_KEY }, 'PAYMENT_CONFIG_INVALID'],
    ['test', { secretKey: '   ' }, 'VALIDATION_ERROR'],
    ['test', { secretKey: TEST_KEY, extra: 1 }, 'VALIDATION_ERROR'],
    ['staging', { secretKey: TEST_KEY }, 'VALIDATION_ERROR'],
    ['test', { secretKey: 'sk_test_bad key' }, 'PAYMENT_CONFIG_INVALID'],
  ])('PUT %s config %j → 400 %s', async (env, body, code) => {
    const res = await put(env, body);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe(code);
  });

  it('a processor outage while checking the key stores nothing (502)', async () => {
    p.peer.failNext(1, '/v1/account');
    const res = await put('test', { secretKey: TEST_KEY });
    expect(res.statusCode).toBe(502);
    expect(res.json.error).toBe('UPSTREAM_FAILURE');
    const keys = await p.t.request({ method: 'GET', url: '/api/payments/config', headers: p.admin });
    expect(keys.json.keys[0].hasKey).toBe(false);
  });

  it('stores keys sealed as reserved secrets, shows them masked, reports the connection', async () => {
    const res = await put('test', { secretKey: ` ${TEST_KEY} ` });
    expect(res.statusCode).toBe(200);
    expect(res.json.keys[0]).toEqual({ environment: 'test', hasKey: true, maskedKey: 'sk_test_****0001' });
    expect(res.json.keys[1].hasKey).toBe(false);

    const [row] = await p.t.deps
      .sql`select value_ciphertext, is_reserved from system.secrets where key = 'PROCESSOR_TEST_SECRET_KEY'`;
    expect(row!.is_reserved).toBe(true);
    expect(row!.value_ciphertext).not.toContain(TEST_KEY);
    expect(p.t.deps.keyring.open(row!.value_ciphertext)).toBe(TEST_KEY);

    const status = await p.t.request({ method: 'GET', url: '/api/payments/status', headers: p.admin });
    expect(status.json.connections[0]).toMatchObject({
      environment: 'test',
      status: 'connected',
      processorAccountId: p.peer.accountId(TEST_KEY),
      maskedKey: 'sk_test_****0001',
    });
    expect(status.json.connections[1]).toMatchObject({ environment: 'live', status: 'unconfigured', maskedKey: null });
  });

  it('the stored key is reserved: the secrets API refuses to change or delete it', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await p.t.request({
        method,
        url: '/api/secrets/PROCESSOR_TEST_SECRET_KEY',
        headers: p.admin,
        ...(method === 'PUT' ? { payload: { value: 'sk_test_other' } } : {}),
      });
      expect(res.statusCode).toBe(403);
      expect(res.json.error).toBe('FORBIDDEN');
    }
    const keys = await p.t.request({ method: 'GET', url: '/api/payments/config', headers: p.admin });
    expect(keys.json.keys[0].maskedKey).toBe('sk_test_****0001');
  });

  it('removes a key; removing it again is 404', async () => {
    expect((await put('live', { secretKey: LIVE_KEY })).statusCode).toBe(200);
    const del = await p.t.request({ method: 'DELETE', url: '/api/payments/live/config', headers: p.admin });
    expect(del.statusCode).toBe(200);
    expect(del.json.keys[1]).toEqual({ environment: 'live', hasKey: false, maskedKey: null });
    const again = await p.t.request({ method: 'DELETE', url: '/api/payments/live/config', headers: p.admin });
    expect(again.statusCode).toBe(404);
    expect(again.json.error).toBe('PAYMENT_CONFIG_NOT_FOUND');
  });

  it('creates the managed webhook endpoint at the processor; its secret verifies deliveries; recreating replaces it', async () => {
    p.peer.failNext(1, '/v1/webhook_endpoints');
    expect(
      (await p.t.request({ method: 'POST', url: '/api/payments/test/webhook', headers: p.admin })).statusCode,
    ).toBe(502);

    const res = await p.t.request({ method: 'POST', url: '/api/payments/test/webhook', headers: p.admin });
    expect(res.statusCode).toBe(200);
    const { connection } = res.json;
    expect(connection).toMatchObject({
      environment: 'test',
      webhookEndpointUrl: `${p.t.config.apiBaseUrl}/api/webhooks/processor/test`,
    });
    const endpoint = p.peer.get(TEST_KEY, connection.webhookEndpointId)!;
    expect(endpoint.url).toBe(connection.webhookEndpointUrl);
    expect(endpoint.enabled_events).toContain('customer.subscription.updated');

    const payload = JSON.stringify({
      id: 'evt_cfg',
      object: 'event',
      type: 'ping',
      created: epochSeconds(p.t.clock.now()),
      livemode: false,
      data: { object: { id: 'x', object: 'ping' } },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: endpoint.secret,
      timestamp: epochSeconds(p.t.clock.now()),
    });
    const delivered = await p.t.request({
      method: 'POST',
      url: '/api/webhooks/processor/test',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload,
    });
    expect(delivered.statusCode).toBe(200);
    expect(delivered.json.event.processingStatus).toBe('ignored');

    const again = await p.t.request({ method: 'POST', url: '/api/payments/test/webhook', headers: p.admin });
    expect(again.json.connection.webhookEndpointId).not.toBe(connection.webhookEndpointId);
    expect(p.peer.get(TEST_KEY, connection.webhookEndpointId)).toBeUndefined();
  });
});
