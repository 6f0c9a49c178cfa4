// The AI and payments screens of the dashboard in Chromium against a live Plinth with loopback
// peers (an OpenAI-compatible provider, the payment processor): the AI key set write-only, a model
// allow-listed and the usage of a call charted; payments "not configured", then the processor's
// products after a sync; the dark theme. Each screen: what the API then holds, axe clean, a
// screenshot; no console errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../harness/openai-peer.js';
import { type ProcessorPeer, startProcessorPeer } from '../harness/processor-peer.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

const PROCESSOR_KEY = 'sk_test_plinth0000000000000001';

let live: LiveDashboard;
let ai: OpenAiPeer;
let processor: ProcessorPeer;

beforeAll(async () => {
  [ai, processor] = await Promise.all([startOpenAiPeer(), startProcessorPeer()]);
  live = await startLiveDashboard({ OPENROUTER_BASE_URL: ai.baseUrl, OPENROUTER_MAX_RETRIES: '0', ...processor.env });
  await live.signIn(live.browser, '/ai');
}, 60_000);

afterAll(async () => {
  await live?.close();
  await Promise.all([ai?.close(), processor?.close()]);
});

describe('the AI and payments screens in Chromium', { timeout: 60_000 }, () => {
  it('sets the AI provider key, allow-lists a model and charts the usage of a call', async () => {
    const { page } = live.browser;
    await live.visit('/ai');
    await page.getByText('No provider key set.').waitFor();
    await page.getByText('No usage yet').waitFor();
    await live.screenIsClean('ai-empty');

    await page.getByLabel('New provider API key').fill(ai.apiKey);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText(/^Key set: /).waitFor();
    expect(await page.getByText(ai.apiKey, { exact: false }).count()).toBe(0);
    expect((await live.api('GET', '/api/ai/config')).json.apiKey.configured).toBe(true);

    await page.getByRole('combobox', { name: 'Allowed models' }).fill('zeta/free-model');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save allow-list' }).click();
    await page.getByText('Allowed: zeta/free-model').waitFor();
    expect((await live.api('GET', '/api/ai/settings')).json.allowedModels).toEqual(['zeta/free-model']);

    // Users are off until the admin sets a budget too.
    expect((await live.api('PUT', '/api/ai/settings', { userDailyTokenBudget: 100_000 })).statusCode).toBe(200);
    const user = await live.t.signUp();
    const chat = await live.t.request({
      method: 'POST',
      url: '/api/ai/chat/completion',
      headers: { authorization: `Bearer ${user.accessToken}` },
      payload: { model: 'zeta/free-model', messages: [{ role: 'user', content: 'hello there' }] },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    const refused = await live.t.request({
      method: 'POST',
      url: '/api/ai/chat/completion',
      headers: { authorization: `Bearer ${user.accessToken}` },
      payload: { model: 'anthropic/claude', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(refused.statusCode).toBe(400);

    await page.reload();
    const chart = page.getByRole('figure', { name: 'Tokens per day' });
    await chart.locator('.recharts-bar-rectangle').first().waitFor();
    const usage = page.getByRole('table', { name: 'Usage per caller and day' });
    await usage.getByRole('cell', { name: user.user.id }).waitFor();
    await live.screenIsClean('ai-usage');
  });

  it('shows payments not configured, then the products of the processor after a sync', async () => {
    const { page } = live.browser;
    await live.visit('/payments');
    const testEnv = page.getByRole('group', { name: 'test environment' });
    await testEnv.getByText('not configured').waitFor();
    await page.getByRole('group', { name: 'live environment' }).getByText('not configured').waitFor();
    expect(await page.getByRole('button', { name: 'Sync test from the processor' }).isDisabled()).toBe(true);
    await live.screenIsClean('payments-unconfigured');

    const configured = await live.api('PUT', '/api/payments/test/config', { secretKey: PROCESSOR_KEY });
    expect(configured.statusCode, configured.body).toBe(200);
    processor.put(PROCESSOR_KEY, { id: 'prod_ops', object: 'product', name: 'Ops plan', active: true });
    processor.put(PROCESSOR_KEY, {
      id: 'price_ops',
      object: 'price',
      product: 'prod_ops',
      currency: 'usd',
      unit_amount: 1250,
      active: true,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    });
    await page.reload();
    await testEnv.getByText('connected').waitFor();
    await page.getByRole('button', { name: 'Sync test from the processor' }).click();
    const products = page.getByRole('table', { name: 'Products' });
    await products.getByRole('cell', { name: 'Ops plan' }).waitFor();
    await products.getByRole('cell', { name: '12.50 USD / month' }).waitFor();
    await live.screenIsClean('payments-products');
    const catalog = (await live.api('GET', '/api/payments/test/catalog')).json;
    expect(catalog.products.map((p: { name: string }) => p.name)).toEqual(['Ops plan']);

    for (const tab of ['Customers', 'Subscriptions', 'Payment history']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByText(/^No (customers|subscriptions|payments)$/).waitFor();
    }
    await live.screenIsClean('payments-history');
  });

  it('keeps the screens axe clean in the dark theme', async () => {
    const { page } = live.browser;
    await live.visit('/ai');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await page.getByRole('figure', { name: 'Tokens per day' }).waitFor();
    await live.screenIsClean('ai-usage-dark');
    await live.visit('/payments');
    await page.getByRole('table', { name: 'Products' }).waitFor();
    expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe('dark');
    await live.screenIsClean('payments-dark');
  });

  it('logged no console errors', () => {
    expect(live.browser.errors).toEqual([]);
  });
});
