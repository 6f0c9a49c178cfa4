// The payments screen's Razorpay side in Chromium against a live Plinth whose Razorpay is the
// loopback peer: both environments "not configured", then after the keys are stored and a sync,
// the account's plan and a customer with the billing subject it pays for. Axe clean, screenshots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RazorpayPeer, startRazorpayPeer } from '../harness/razorpay-peer.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

const KEY_ID = 'rzp_test_browser00001';
const KEY_SECRET = 'rzp-browser-secret';

let live: LiveDashboard;
let peer: RazorpayPeer;

beforeAll(async () => {
  peer = await startRazorpayPeer();
  peer.addAccount(KEY_ID, KEY_SECRET);
  live = await startLiveDashboard(peer.env);
  await live.signIn(live.browser, '/payments');
}, 60_000);

afterAll(async () => {
  await live?.close();
  await peer?.close();
});

describe('the payments screen shows Razorpay beside Stripe', { timeout: 60_000 }, () => {
  it('shows Razorpay not configured, then its plans and customers after the keys and a sync', async () => {
    const { page } = live.browser;
    await live.visit('/payments');
    await page.locator('label', { hasText: /^Razorpay$/ }).click();
    const testEnv = page.getByRole('group', { name: 'Razorpay test environment' });
    await testEnv.getByText('not configured').waitFor();
    expect(await page.getByRole('button', { name: 'Sync test from Razorpay' }).isDisabled()).toBe(true);
    await live.screenIsClean('payments-razorpay-unconfigured');

    const configured = await live.api('PUT', '/api/payments/razorpay/test/config', {
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
    });
    expect(configured.statusCode, configured.body).toBe(200);
    const plan = await live.api('POST', '/api/payments/razorpay/test/catalog/plans', {
      period: 'monthly',
      interval: 1,
      item: { name: 'Chai club', amount: 19900, currency: 'INR' },
    });
    expect(plan.statusCode, plan.body).toBe(201);
    peer.put(KEY_ID, {
      id: 'cust_browser1',
      entity: 'customer',
      email: 'meera@example.com',
      notes: { svc_subject_type: 'team', svc_subject_id: 'team-42' },
      created_at: 1_790_000_000,
    });

    await page.reload();
    await page.locator('label', { hasText: /^Razorpay$/ }).click();
    await testEnv.getByText('connected').waitFor();
    await page.getByRole('button', { name: 'Sync test from Razorpay' }).click();
    const plans = page.getByRole('table', { name: 'Razorpay plans' });
    await plans.getByRole('cell', { name: '199.00 INR / 1 monthly' }).waitFor();
    await live.screenIsClean('payments-razorpay-plans');

    await page.getByRole('tab', { name: 'Customers' }).click();
    const customers = page.getByRole('table', { name: 'Razorpay customers' });
    await customers.getByRole('cell', { name: 'team team-42' }).waitFor();
    await live.screenIsClean('payments-razorpay-customers');
  });
});
