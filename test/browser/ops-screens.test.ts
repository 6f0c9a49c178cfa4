// The operations screens of the dashboard in Chromium against a live Plinth: the overview's recent
// errors; realtime channels created, edited and deleted; a schedule created with its run preview,
// run now and its run in the history; a backup taken, downloaded, and restored with the typed
// confirmation after a row was deleted. Each screen: what the API then holds, axe clean, a
// screenshot; a phone width; no console errors.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser } from './browser.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

const TABLE = 'ops_notes';

let live: LiveDashboard;
let failedRequestId = '';

beforeAll(async () => {
  live = await startLiveDashboard({ SCHEDULES_POLL_MS: '0' });
  const created = await live.api('POST', '/api/database/tables', {
    tableName: TABLE,
    columns: [{ columnName: 'note', type: 'string', isNullable: false }],
  });
  expect(created.statusCode, created.body).toBe(201);
  const inserted = await live.api('POST', `/api/database/records/${TABLE}`, [{ note: 'kept' }, { note: 'restored' }]);
  expect(inserted.statusCode, inserted.body).toBe(201);

  // A server error for the overview: the AI gateway called before any provider key is set.
  const failed = await live.api('POST', '/api/ai/chat/completion', {
    model: 'zeta/free-model',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(failed.statusCode).toBe(500);
  failedRequestId = String(failed.headers['x-request-id']);
  expect(failedRequestId).not.toBe('undefined');
  await live.t.app.logs!.flush();
}, 60_000);

afterAll(() => live?.close());

describe('the operations screens in Chromium', { timeout: 60_000 }, () => {
  it('shows a recent server error on the overview, linking to its request on the Logs screen', async () => {
    await live.signIn(live.browser, '/');
    const errors = live.browser.page.getByRole('table', { name: 'Recent errors' });
    const link = errors.getByRole('link', { name: /POST \/api\/ai\/chat\/completion 500/ });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/dashboard/logs?requestId=${encodeURIComponent(failedRequestId)}`);
    await live.screenIsClean('overview-recent-errors');
  });

  it('creates, edits and deletes realtime channels and shows permissions, messages and deliveries', async () => {
    const { page } = live.browser;
    await live.visit('/realtime');
    await page.getByRole('heading', { name: 'Realtime' }).waitFor();
    await page.getByText('No channels yet').waitFor();
    await live.screenIsClean('realtime-empty');

    await page.getByRole('button', { name: 'New channel' }).click();
    await page.getByRole('textbox', { name: 'Pattern' }).fill('orders:%');
    await page.getByRole('textbox', { name: 'Description' }).fill('Order updates');
    await page.getByRole('textbox', { name: 'Webhook URLs' }).fill(`${live.baseUrl}/api/health`);
    await page.getByRole('button', { name: 'Create channel' }).click();
    const channels = page.getByRole('table', { name: 'Channels' });
    await channels.getByRole('cell', { name: 'orders:%', exact: true }).waitFor();
    await channels.getByRole('cell', { name: 'Order updates', exact: true }).waitFor();
    await live.screenIsClean('realtime-channels');
    const [stored] = (await live.api('GET', '/api/realtime/channels')).json;
    expect(stored).toMatchObject({ pattern: 'orders:%', description: 'Order updates', enabled: true });
    expect(stored.webhookUrls).toEqual([`${live.baseUrl}/api/health`]);

    await page.getByRole('button', { name: 'Edit channel orders:%' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit channel' });
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Order changes');
    await dialog.getByRole('button', { name: 'Save channel' }).click();
    await channels.getByRole('cell', { name: 'Order changes', exact: true }).waitFor();
    expect((await live.api('GET', `/api/realtime/channels/${stored.id}`)).json.description).toBe('Order changes');

    expect((await live.api('POST', '/api/realtime/channels', { pattern: 'scratch' })).statusCode).toBe(201);
    await page.reload();
    await channels.getByRole('cell', { name: 'scratch', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete channel scratch' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete channel scratch?' });
    await confirm.waitFor();
    await live.screenIsClean('realtime-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete channel' }).click();
    await channels.getByRole('cell', { name: 'scratch', exact: true }).waitFor({ state: 'detached' });
    const left = (await live.api('GET', '/api/realtime/channels')).json.map((c: { pattern: string }) => c.pattern);
    expect(left).toEqual(['orders:%']);

    for (const [tab, ready] of [
      ['Permissions', page.getByRole('heading', { name: 'Subscribe' })],
      ['Messages', page.getByText('No messages yet')],
      ['Webhook deliveries', page.getByText('No deliveries')],
    ] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await ready.waitFor();
      await live.screenIsClean(`realtime-${tab.toLowerCase().replace(' ', '-')}`);
    }
  });

  it('creates a schedule with its next runs previewed, runs it now and shows the run', async () => {
    const { page } = live.browser;
    await live.visit('/schedules');
    await page.getByText('No schedules yet').waitFor();
    await page.getByRole('button', { name: 'New schedule' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Health ping');
    await page.getByRole('textbox', { name: 'Cron expression' }).fill('0 3 * * *');
    await page.getByRole('region', { name: 'Next runs' }).getByRole('listitem').nth(2).waitFor();
    await page.getByText('Any URL', { exact: true }).click();
    await page.getByRole('textbox', { name: 'URL' }).fill(`${live.baseUrl}/api/health`);
    await page.getByRole('combobox', { name: 'Method' }).selectOption('GET');
    await live.screenIsClean('schedules-new');
    await page.getByRole('button', { name: 'Create schedule' }).click();

    const row = page.getByRole('table', { name: 'Schedules' }).getByRole('row', { name: /Health ping/ });
    await row.waitFor();
    const [schedule] = (await live.api('GET', '/api/schedules')).json;
    expect(schedule).toMatchObject({
      name: 'Health ping',
      cronSchedule: '0 3 * * *',
      functionUrl: `${live.baseUrl}/api/health`,
      httpMethod: 'GET',
      isActive: true,
    });

    await row.getByRole('button', { name: 'Run now: Health ping' }).click();
    const runs = page.getByRole('table', { name: 'Runs of Health ping' });
    await runs.getByText('success', { exact: true }).waitFor();
    await runs.getByRole('cell', { name: '200', exact: true }).waitFor();
    await live.screenIsClean('schedules-run-history');
    const logs = (await live.api('GET', `/api/schedules/${schedule.id}/logs`)).json;
    expect(logs.totalCount).toBe(1);
    expect(logs.logs[0]).toMatchObject({ status: 'success', statusCode: 200 });

    await row.getByRole('switch', { name: 'Active: Health ping' }).click({ force: true });
    await row.getByText('Paused').waitFor();
    expect((await live.api('GET', `/api/schedules/${schedule.id}`)).json.isActive).toBe(false);
  });

  it('takes a backup, downloads it, and restores a deleted row after the typed confirmation', async () => {
    const { page } = live.browser;
    await live.visit('/backups');
    await page.getByText('No backups yet').waitFor();
    await page.getByRole('textbox', { name: 'Backup name (optional)' }).fill('before-cleanup');
    await page.getByRole('button', { name: 'Create backup' }).click();
    const row = page.getByRole('table', { name: 'Backups' }).getByRole('row', { name: /before-cleanup/ });
    await row.getByText('completed').waitFor({ timeout: 20_000 });
    await live.screenIsClean('backups');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download before-cleanup' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.gz$/);
    const saved = await download.path();
    expect(statSync(saved).size).toBeGreaterThan(100);

    const removed = await live.api('DELETE', `/api/database/records/${TABLE}?note=eq.restored`);
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    const notes = async () =>
      ((await live.api('GET', `/api/database/records/${TABLE}?order=note`)).json as { note: string }[]).map(
        (r) => r.note,
      );
    expect(await notes()).toEqual(['kept']);

    await row.getByRole('button', { name: 'Restore before-cleanup' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore backup before-cleanup?' });
    const confirm = dialog.getByRole('button', { name: 'Restore backup' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Type before-cleanup to confirm' }).fill('before-clean');
    expect(await confirm.isDisabled()).toBe(true);
    await live.screenIsClean('backups-restore-confirm');
    await dialog.getByRole('textbox', { name: 'Type before-cleanup to confirm' }).fill('before-cleanup');
    await confirm.click();
    await page
      .getByRole('status')
      .filter({ hasText: /restor/i })
      .waitFor({ timeout: 20_000 });
    expect(await notes()).toEqual(['kept', 'restored']);
  });

  it('works on a 390-px-wide phone', async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      await live.signIn(phone, '/schedules');
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
    expect(live.browser.errors).toEqual([]);
  });
});
