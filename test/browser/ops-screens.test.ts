// The operations screens of the dashboard in Chromium against a live Plinth with loopback peers
// (an OpenAI-compatible provider, the payment processor): the overview's recent errors; realtime
// channels created, edited and deleted; a schedule created with its run preview, run now and its
// run in the history; a backup taken, downloaded, and restored with the typed confirmation after a
// row was deleted; payments "not configured", then products after a sync; the AI key, allow-list
// and usage chart. Each screen: what the API then holds, axe clean, a screenshot; a phone width.
import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startOpenAiPeer, type OpenAiPeer } from '../harness/openai-peer.js';
import { type ProcessorPeer, startProcessorPeer } from '../harness/processor-peer.js';
import { startTestApp, TEST_ADMIN, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);
const TABLE = 'ops_notes';
const PROCESSOR_KEY = 'sk_test_plinth0000000000000001';

let t: TestApp;
let ai: OpenAiPeer;
let processor: ProcessorPeer;
let baseUrl = '';
let browser: BrowserSession;
const asAdmin = { 'x-api-key': '' };
let failedRequestId = '';

const api = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: asAdmin, payload: payload as object });

async function signIn(session: BrowserSession, path: string) {
  await session.page.goto(`${baseUrl}/dashboard${path}`);
  await session.page.getByLabel('Admin email').fill(TEST_ADMIN.email);
  await session.page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
  await session.page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens a screen by its address (the session resumes from its cookie), as after a reload. */
async function visit(path: string) {
  await browser.page.goto(`${baseUrl}/dashboard${path}`);
}

async function screenIsClean(name: string) {
  await browser.screenshot(name);
  expect(await browser.seriousViolations()).toEqual([]);
}

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  [ai, processor] = await Promise.all([startOpenAiPeer(), startProcessorPeer()]);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: {
      API_BASE_URL: baseUrl,
      OPENROUTER_BASE_URL: ai.baseUrl,
      OPENROUTER_MAX_RETRIES: '0',
      SCHEDULES_POLL_MS: '0',
      ...processor.env,
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  asAdmin['x-api-key'] = t.apiKey;

  const created = await api('POST', '/api/database/tables', {
    tableName: TABLE,
    columns: [{ columnName: 'note', type: 'string', isNullable: false }],
  });
  expect(created.statusCode, created.body).toBe(201);
  const inserted = await api('POST', `/api/database/records/${TABLE}`, [{ note: 'kept' }, { note: 'restored' }]);
  expect(inserted.statusCode, inserted.body).toBe(201);

  // A server error for the overview: the AI gateway called before any provider key is set.
  const failed = await api('POST', '/api/ai/chat/completion', {
    model: 'zeta/free-model',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(failed.statusCode).toBe(500);
  failedRequestId = String(failed.headers['x-request-id']);
  expect(failedRequestId).not.toBe('undefined');
  await t.app.logs!.flush();
  browser = await openBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([ai?.close(), processor?.close()]);
});

describe('the operations screens in Chromium', { timeout: 60_000 }, () => {
  it('shows a recent server error on the overview, linking to its request on the Logs screen', async () => {
    await signIn(browser, '/');
    const errors = browser.page.getByRole('table', { name: 'Recent errors' });
    const link = errors.getByRole('link', { name: /POST \/api\/ai\/chat\/completion 500/ });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/dashboard/logs?requestId=${encodeURIComponent(failedRequestId)}`);
    await screenIsClean('overview-recent-errors');
  });

  it('creates, edits and deletes realtime channels and shows permissions, messages and deliveries', async () => {
    const { page } = browser;
    await visit('/realtime');
    await page.getByRole('heading', { name: 'Realtime' }).waitFor();
    await page.getByText('No channels yet').waitFor();
    await screenIsClean('realtime-empty');

    await page.getByRole('button', { name: 'New channel' }).click();
    await page.getByRole('textbox', { name: 'Pattern' }).fill('orders:%');
    await page.getByRole('textbox', { name: 'Description' }).fill('Order updates');
    await page.getByRole('textbox', { name: 'Webhook URLs' }).fill(`${baseUrl}/api/health`);
    await page.getByRole('button', { name: 'Create channel' }).click();
    const channels = page.getByRole('table', { name: 'Channels' });
    await channels.getByRole('cell', { name: 'orders:%', exact: true }).waitFor();
    await channels.getByRole('cell', { name: 'Order updates', exact: true }).waitFor();
    await screenIsClean('realtime-channels');
    const [stored] = (await api('GET', '/api/realtime/channels')).json;
    expect(stored).toMatchObject({ pattern: 'orders:%', description: 'Order updates', enabled: true });
    expect(stored.webhookUrls).toEqual([`${baseUrl}/api/health`]);

    await page.getByRole('button', { name: 'Edit channel orders:%' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit channel' });
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Order changes');
    await dialog.getByRole('button', { name: 'Save channel' }).click();
    await channels.getByRole('cell', { name: 'Order changes', exact: true }).waitFor();
    expect((await api('GET', `/api/realtime/channels/${stored.id}`)).json.description).toBe('Order changes');

    expect((await api('POST', '/api/realtime/channels', { pattern: 'scratch' })).statusCode).toBe(201);
    await page.reload();
    await channels.getByRole('cell', { name: 'scratch', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete channel scratch' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete channel scratch?' });
    await confirm.waitFor();
    await screenIsClean('realtime-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete channel' }).click();
    await channels.getByRole('cell', { name: 'scratch', exact: true }).waitFor({ state: 'detached' });
    const left = (await api('GET', '/api/realtime/channels')).json.map((c: { pattern: string }) => c.pattern);
    expect(left).toEqual(['orders:%']);

    for (const [tab, ready] of [
      ['Permissions', page.getByRole('heading', { name: 'Subscribe' })],
      ['Messages', page.getByText('No messages yet')],
      ['Webhook deliveries', page.getByText('No deliveries')],
    ] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await ready.waitFor();
      await screenIsClean(`realtime-${tab.toLowerCase().replace(' ', '-')}`);
    }
  });

  it('creates a schedule with its next runs previewed, runs it now and shows the run', async () => {
    const { page } = browser;
    await visit('/schedules');
    await page.getByText('No schedules yet').waitFor();
    await page.getByRole('button', { name: 'New schedule' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Health ping');
    await page.getByRole('textbox', { name: 'Cron expression' }).fill('0 3 * * *');
    await page.getByRole('region', { name: 'Next runs' }).getByRole('listitem').nth(2).waitFor();
    await page.getByText('URL of this API', { exact: true }).click();
    await page.getByRole('textbox', { name: 'URL' }).fill(`${baseUrl}/api/health`);
    await page.getByRole('combobox', { name: 'Method' }).selectOption('GET');
    await screenIsClean('schedules-new');
    await page.getByRole('button', { name: 'Create schedule' }).click();

    const row = page.getByRole('table', { name: 'Schedules' }).getByRole('row', { name: /Health ping/ });
    await row.waitFor();
    const [schedule] = (await api('GET', '/api/schedules')).json;
    expect(schedule).toMatchObject({
      name: 'Health ping',
      cronSchedule: '0 3 * * *',
      functionUrl: `${baseUrl}/api/health`,
      httpMethod: 'GET',
      isActive: true,
    });

    await row.getByRole('button', { name: 'Run now: Health ping' }).click();
    const runs = page.getByRole('table', { name: 'Runs of Health ping' });
    await runs.getByText('success', { exact: true }).waitFor();
    await runs.getByRole('cell', { name: '200', exact: true }).waitFor();
    await screenIsClean('schedules-run-history');
    const logs = (await api('GET', `/api/schedules/${schedule.id}/logs`)).json;
    expect(logs.totalCount).toBe(1);
    expect(logs.logs[0]).toMatchObject({ status: 'success', statusCode: 200 });

    await row.getByRole('switch', { name: 'Active: Health ping' }).click({ force: true });
    await row.getByText('Paused').waitFor();
    expect((await api('GET', `/api/schedules/${schedule.id}`)).json.isActive).toBe(false);
  });

  it('takes a backup, downloads it, and restores a deleted row after the typed confirmation', async () => {
    const { page } = browser;
    await visit('/backups');
    await page.getByText('No backups yet').waitFor();
    await page.getByRole('textbox', { name: 'Backup name (optional)' }).fill('before-cleanup');
    await page.getByRole('button', { name: 'Create backup' }).click();
    const row = page.getByRole('table', { name: 'Backups' }).getByRole('row', { name: /before-cleanup/ });
    await row.getByText('completed').waitFor({ timeout: 20_000 });
    await screenIsClean('backups');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download before-cleanup' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.gz$/);
    const saved = await download.path();
    expect(statSync(saved).size).toBeGreaterThan(100);

    const removed = await api('DELETE', `/api/database/records/${TABLE}?note=eq.restored`);
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    const notes = async () =>
      ((await api('GET', `/api/database/records/${TABLE}?order=note`)).json as { note: string }[]).map((r) => r.note);
    expect(await notes()).toEqual(['kept']);

    await row.getByRole('button', { name: 'Restore before-cleanup' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore backup before-cleanup?' });
    const confirm = dialog.getByRole('button', { name: 'Restore backup' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Type before-cleanup to confirm' }).fill('before-clean');
    expect(await confirm.isDisabled()).toBe(true);
    await screenIsClean('backups-restore-confirm');
    await dialog.getByRole('textbox', { name: 'Type before-cleanup to confirm' }).fill('before-cleanup');
    await confirm.click();
    await page
      .getByRole('status')
      .filter({ hasText: /restor/i })
      .waitFor({ timeout: 20_000 });
    expect(await notes()).toEqual(['kept', 'restored']);
  });

  it('sets the AI provider key, allow-lists a model and charts the usage of a call', async () => {
    const { page } = browser;
    await visit('/ai');
    await page.getByText('No provider key set.').waitFor();
    await page.getByText('No usage yet').waitFor();
    await screenIsClean('ai-empty');

    await page.getByLabel('New provider API key').fill(ai.apiKey);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText(/^Key set: /).waitFor();
    expect(await page.getByText(ai.apiKey, { exact: false }).count()).toBe(0);
    expect((await api('GET', '/api/ai/config')).json.apiKey.configured).toBe(true);

    await page.getByRole('combobox', { name: 'Allowed models' }).fill('zeta/free-model');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save allow-list' }).click();
    await page.getByText('Allowed: zeta/free-model').waitFor();
    expect((await api('GET', '/api/ai/settings')).json.allowedModels).toEqual(['zeta/free-model']);

    const user = await t.signUp();
    const chat = await t.request({
      method: 'POST',
      url: '/api/ai/chat/completion',
      headers: { authorization: `Bearer ${user.accessToken}` },
      payload: { model: 'zeta/free-model', messages: [{ role: 'user', content: 'hello there' }] },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    const refused = await t.request({
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
    await screenIsClean('ai-usage');
  });

  it('shows payments not configured, then the products of the processor after a sync', async () => {
    const { page } = browser;
    await visit('/payments');
    const testEnv = page.getByRole('group', { name: 'test environment' });
    await testEnv.getByText('not configured').waitFor();
    await page.getByRole('group', { name: 'live environment' }).getByText('not configured').waitFor();
    expect(await page.getByRole('button', { name: 'Sync test from the processor' }).isDisabled()).toBe(true);
    await screenIsClean('payments-unconfigured');

    const configured = await api('PUT', '/api/payments/test/config', { secretKey: PROCESSOR_KEY });
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
    await screenIsClean('payments-products');
    const catalog = (await api('GET', '/api/payments/test/catalog')).json;
    expect(catalog.products.map((p: { name: string }) => p.name)).toEqual(['Ops plan']);

    for (const tab of ['Customers', 'Subscriptions', 'Payment history']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByText(/^No (customers|subscriptions|payments)$/).waitFor();
    }
    await screenIsClean('payments-history');
  });

  it('works on a 390-px-wide phone', async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      await signIn(phone, '/schedules');
      await phone.page.getByRole('table', { name: 'Schedules' }).waitFor();
      await phone.screenshot('schedules-phone');
      expect(await phone.seriousViolations()).toEqual([]);
      await phone.page.getByRole('button', { name: 'Toggle navigation' }).click();
      await phone.page.getByRole('link', { name: 'Backups' }).click();
      await phone.page.getByRole('table', { name: 'Backups' }).waitFor();
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBe(0);
      await phone.screenshot('backups-phone');
      expect(await phone.seriousViolations()).toEqual([]);
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
