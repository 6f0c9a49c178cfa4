// Issues 39/40's console changes in Chromium against a live Plinth with loopback peers (the payment
// processor, Razorpay, an OpenAI-compatible provider): the Logs screen hides the console's own
// /dashboard requests until asked; the payments settings form stores, checks and removes each
// processor's keys (what the API then holds); the AI screen without a key says which setting to
// set and asks the provider for nothing, then takes a key from its form. Axe clean, also at phone
// width; no console errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../harness/openai-peer.js';
import { type ProcessorPeer, startProcessorPeer } from '../harness/processor-peer.js';
import { type RazorpayPeer, startRazorpayPeer } from '../harness/razorpay-peer.js';
import { openBrowser } from './browser.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

const PROCESSOR_KEY = 'sk_test_settings0000000000001';
const RZP_KEY_ID = 'rzp_test_settings0001';
const RZP_KEY_SECRET = 'rzp-settings-secret';

let live: LiveDashboard;
let ai: OpenAiPeer;
let processor: ProcessorPeer;
let razorpay: RazorpayPeer;

beforeAll(async () => {
  [ai, processor, razorpay] = await Promise.all([startOpenAiPeer(), startProcessorPeer(), startRazorpayPeer()]);
  razorpay.addAccount(RZP_KEY_ID, RZP_KEY_SECRET);
  live = await startLiveDashboard({
    OPENROUTER_BASE_URL: ai.baseUrl,
    OPENROUTER_MAX_RETRIES: '0',
    ...processor.env,
    ...razorpay.env,
  });
  await live.signIn(live.browser, '/');
}, 90_000);

afterAll(async () => {
  await live?.close();
  await Promise.all([ai?.close(), processor?.close(), razorpay?.close()]);
});

describe('console settings and filters in Chromium', { timeout: 90_000 }, () => {
  it('hides the console’s own requests in the logs until they are asked for', async () => {
    const { page } = live.browser;
    // The sign-in's API requests stored first: with nothing but console requests stored the screen
    // shows its empty state, not the table (the log writer flushes on its own timer otherwise).
    await live.t.app.logs!.flush();
    await live.visit('/logs');
    await page.getByRole('table', { name: 'Log lines' }).waitFor();
    await live.t.app.logs!.flush();
    // The console's page loads are stored like any request.
    const stored = (await live.api('GET', '/api/logs/search?source=requests&limit=1000')).json as {
      body: { route: string | null };
    }[];
    const consoleLines = stored.filter((l) => l.body.route?.startsWith('/dashboard'));
    expect(consoleLines.length).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Refresh' }).click();
    const consoleSwitch = page.getByRole('switch', { name: 'Show the console’s own requests (/dashboard)' });
    const lines = page.getByRole('table', { name: 'Log lines' });
    await page
      .getByRole('status')
      .getByText(/console requests? hidden/)
      .waitFor();
    expect(await lines.getByText(/^GET \/dashboard/).count()).toBe(0);
    await lines
      .getByText(/^GET \/api\//)
      .first()
      .waitFor();
    await live.screenIsClean('logs-console-hidden');

    await consoleSwitch.click();
    await lines
      .getByText(/^GET \/dashboard/)
      .first()
      .waitFor();
    expect(
      await page
        .getByRole('status')
        .getByText(/hidden/)
        .count(),
    ).toBe(0);
    await consoleSwitch.click();
    await page
      .getByRole('status')
      .getByText(/console requests? hidden/)
      .waitFor();
  });

  it('stores, refuses and removes the processor keys from the payments settings', async () => {
    const { page } = live.browser;
    await live.visit('/payments');
    const settings = page.getByRole('region', { name: 'Stripe test settings' });
    const testEnv = page.getByRole('group', { name: 'test environment' });
    await testEnv.getByText('not configured').waitFor();
    expect(await settings.getByRole('button', { name: 'Remove test keys' }).count()).toBe(0);

    // A live key for the test environment is refused, with the server's reason (the browser logs
    // the 400 as a console error: expected here, and taken off the list).
    const errorsBefore = live.browser.errors.length;
    await settings.getByLabel('Secret key').fill('sk_live_wrongenvironment000001');
    await settings.getByRole('button', { name: 'Save test keys' }).click();
    await settings.getByRole('alert').waitFor();
    await expect.poll(() => live.browser.errors.slice(errorsBefore)).toEqual([expect.stringContaining('400')]);
    live.browser.errors.splice(errorsBefore);
    expect((await live.api('GET', '/api/payments/config')).json.keys).toContainEqual(
      expect.objectContaining({ environment: 'test', hasKey: false }),
    );

    await settings.getByLabel('Secret key').fill(PROCESSOR_KEY);
    await settings.getByRole('button', { name: 'Save test keys' }).click();
    await settings.getByText('Stripe test keys saved.').waitFor();
    await testEnv.getByText('connected').waitFor();
    expect(await settings.getByLabel('Secret key').inputValue()).toBe('');
    expect(await page.getByText(PROCESSOR_KEY).count()).toBe(0);
    expect((await live.api('GET', '/api/payments/config')).json.keys).toContainEqual(
      expect.objectContaining({ environment: 'test', hasKey: true }),
    );

    await settings.getByRole('button', { name: 'Create the test webhook endpoint' }).click();
    await settings.getByText('The test webhook endpoint points at this server.').waitFor();
    const status = (await live.api('GET', '/api/payments/status')).json.connections;
    expect(status.find((c: { environment: string }) => c.environment === 'test').webhookEndpointUrl).toBe(
      `${live.baseUrl}/api/webhooks/processor/test`,
    );
    await live.screenIsClean('payments-settings-stripe');

    await settings.getByRole('button', { name: 'Remove test keys' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove the Stripe test keys?' });
    await confirm.getByRole('button', { name: 'Remove keys' }).click();
    await testEnv.getByText('not configured').waitFor();
    expect((await live.api('GET', '/api/payments/config')).json.keys).toContainEqual(
      expect.objectContaining({ environment: 'test', hasKey: false }),
    );

    // Razorpay: a key pair.
    await page.locator('label', { hasText: /^Razorpay$/ }).click();
    const rzp = page.getByRole('region', { name: 'Razorpay test settings' });
    await rzp.getByLabel('Key id').fill(RZP_KEY_ID);
    await rzp.getByLabel('Key secret').fill(RZP_KEY_SECRET);
    await rzp.getByRole('button', { name: 'Save test keys' }).click();
    await rzp.getByText('Razorpay test keys saved.').waitFor();
    await page.getByRole('group', { name: 'Razorpay test environment' }).getByText('connected').waitFor();
    const rzpKeys = (await live.api('GET', '/api/payments/razorpay/config')).json.keys as {
      environment: string;
      keyType: string;
      value: string | null;
    }[];
    expect(rzpKeys.find((k) => k.environment === 'test' && k.keyType === 'api_key')?.value).toMatch(
      /^rzp_test_\*+0001$/,
    );
    await live.screenIsClean('payments-settings-razorpay');
  });

  it('says AI is not configured and which setting sets it, asking the provider for nothing', async () => {
    const { page } = live.browser;
    const providerCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/ai/models') providerCalls.push(request.url());
    });
    await live.visit('/ai');
    const alert = page.getByRole('status').filter({ hasText: 'AI is not configured' });
    await alert.getByText('OPENROUTER_API_KEY=sk-or-…').waitFor();
    await page.getByText('No usage yet').waitFor();
    await live.screenIsClean('ai-not-configured');
    expect(providerCalls).toEqual([]);

    await page.getByLabel('New provider API key').fill(ai.apiKey);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText(/^Key set: /).waitFor();
    await expect.poll(() => page.getByText('AI is not configured').count()).toBe(0);
    // With a key, the allow-list offers the provider's catalogue.
    await expect.poll(() => providerCalls.length).toBeGreaterThan(0);
    await live.t.app.logs!.flush();
    expect((await live.api('GET', '/api/logs/search?source=errors')).json).toEqual([]);
  });

  it('keeps the new parts axe clean on a 390-px phone', async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      await live.signIn(phone, '/logs');
      for (const [path, ready] of [
        ['/logs', 'Show the console’s own requests (/dashboard)'],
        ['/payments', 'Stripe test settings'],
        ['/ai', 'Model allow-list'],
        ['/backups', 'No backups yet'],
      ] as const) {
        await phone.page.goto(`${live.baseUrl}/dashboard${path}`);
        await phone.page.getByText(ready).first().waitFor();
        await phone.screenshot(`phone${path.replace('/', '-')}`);
        expect(await phone.seriousViolations(), path).toEqual([]);
      }
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('logged no console errors', () => {
    expect(live.browser.errors).toEqual([]);
  });
});
