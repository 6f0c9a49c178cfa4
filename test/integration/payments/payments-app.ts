// A Plinth test app whose processor SDK talks to the loopback processor peer, with helpers to
// configure an environment's keys as the admin and to deliver signed processor events.
import Stripe from 'stripe';
import { expect } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { startProcessorPeer, type ProcessorPeer } from '../../harness/processor-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

export const TEST_KEY = 'sk_test_plinth0000000000000001';
export const LIVE_KEY = 'sk_live_plinth0000000000000001';
export const WEBHOOK_SECRETS = { test: 'whsec_test_secret_value', live: 'whsec_live_secret_value' };

export interface PaymentsApp {
  t: TestApp;
  peer: ProcessorPeer;
  admin: { 'x-api-key': string };
  /** Stores both environments' keys through the API. */
  configureBoth(): Promise<void>;
  close(): Promise<void>;
}

export async function startPaymentsApp(): Promise<PaymentsApp> {
  const peer = await startProcessorPeer();
  const t = await startTestApp({ env: peer.env });
  const admin = { 'x-api-key': t.apiKey };
  return {
    t,
    peer,
    admin,
    async configureBoth() {
      for (const [env, secretKey] of [
        ['test', TEST_KEY],
        ['live', LIVE_KEY],
      ] as const) {
        const res = await t.request({
          method: 'PUT',
          url: `/api/payments/${env}/config`,
          headers: admin,
          payload: { secretKey, webhookSecret: WEBHOOK_SECRETS[env] },
        });
        if (res.statusCode !== 200) throw new Error(`configure ${env}: ${res.statusCode} ${res.body}`);
      }
    },
    async close() {
      await t.close();
      await peer.close();
    },
  };
}

/**
 * The catalog checkout tests sell from: product prod_1 with price_1 (100 usd, of the given type) in
 * the test environment, synced into Plinth.
 */
export async function stockOnePrice(p: PaymentsApp, type: 'recurring' | 'one_time') {
  p.peer.put(TEST_KEY, { id: 'prod_1', object: 'product', name: 'P', active: true });
  p.peer.put(TEST_KEY, {
    id: 'price_1',
    object: 'price',
    product: 'prod_1',
    currency: 'usd',
    unit_amount: 100,
    active: true,
    type,
  });
  expect((await p.t.request({ method: 'POST', url: '/api/payments/test/sync', headers: p.admin })).statusCode).toBe(
    200,
  );
}

/** A subscription as the processor returns it, with one item of price_pro. */
export function subscriptionObject(id: string, customer: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'subscription',
    customer,
    status,
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    trial_start: null,
    trial_end: null,
    latest_invoice: 'in_1',
    metadata: {},
    items: {
      object: 'list',
      has_more: false,
      data: [
        {
          id: `si_${id}`,
          object: 'subscription_item',
          quantity: 2,
          metadata: {},
          current_period_start: 1_790_000_000,
          current_period_end: 1_792_592_000,
          price: { id: 'price_pro', object: 'price', product: 'prod_pro' },
        },
      ],
    },
    ...extra,
  };
}

let counter = 0;

/** A processor event of `type` about `object`, created now on the app's clock unless told. */
export function processorEvent(
  p: PaymentsApp,
  type: string,
  object: object,
  options: { created?: number; id?: string; livemode?: boolean } = {},
) {
  return {
    id: options.id ?? `evt_${++counter}_${Date.now()}`,
    object: 'event',
    api_version: '2026-01-01',
    created: options.created ?? epochSeconds(p.t.clock.now()),
    livemode: options.livemode ?? false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  };
}

/** Posts an event to the webhook endpoint, signed as the processor does (or as told). */
export function deliverEvent(
  p: PaymentsApp,
  body: object,
  options: { env?: 'test' | 'live'; secret?: string; timestamp?: number; signature?: string | null } = {},
) {
  const env = options.env ?? 'test';
  const payload = JSON.stringify(body);
  const signature =
    options.signature === undefined
      ? Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: options.secret ?? WEBHOOK_SECRETS[env],
          timestamp: options.timestamp ?? epochSeconds(p.t.clock.now()),
        })
      : options.signature;
  return p.t.request({
    method: 'POST',
    url: `/api/webhooks/processor/${env}`,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === null ? {} : { 'stripe-signature': signature }),
    },
    payload,
  });
}
