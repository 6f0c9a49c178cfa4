// The Tables screen in a real browser against a live Plinth: the admin creates a table through
// the form (json, timestamp, boolean, enum and foreign-key columns), inserts rows through the grid
// with type-aware inputs (an invalid JSON is refused in place), edits one, deletes one (confirmed),
// filters and sorts server-side, adds a column, reads the indexes, sees the "RLS on but no policy"
// warning and creates a policy; the API then holds what the UI did, and every write went through
// the audited admin record route. A 100,000-row table scrolls to its last row. axe-clean, light
// and dark, a 390-px-wide phone, no console errors, a screenshot of each view.
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const TABLE = 'ui_notes';
const BIG = 'big_numbers';
const BIG_ROWS = 100_000;
const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);

let t: TestApp;
let baseUrl = '';
let browser: BrowserSession;
const asAdmin = { 'x-api-key': '' };
let adaId = '';

async function api(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await t.request({ method, url, headers: asAdmin, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json as any;
}

const signIn = (page: Page) => signInAsAdmin(page);

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl, LOGS_FLUSH_INTERVAL_MS: '3600000' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  asAdmin['x-api-key'] = t.apiKey;

  await api('POST', '/api/database/migrations', {
    version: '1',
    name: 'note-mood',
    sql: "create type public.note_mood as enum ('calm', 'busy', 'late')",
  });
  await api('POST', '/api/database/tables', {
    tableName: 'authors',
    columns: [{ columnName: 'name', type: 'string', isNullable: false }],
  });
  [{ id: adaId }] = await api('POST', '/api/database/records/authors?select=id', [
    { name: 'Ada' },
    { name: 'Grace' },
  ]).then(async () => api('GET', '/api/database/records/authors?name=eq.Ada&select=id'));
  await api('POST', '/api/database/tables', {
    tableName: BIG,
    columns: [{ columnName: 'n', type: 'integer', isNullable: false }],
  });
  await api('POST', '/api/database/advance/rawsql', {
    query: `insert into public.${BIG} (n) select g from generate_series(1, ${BIG_ROWS}) g`,
  });
  browser = await openBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the Tables screen in Chromium', () => {
  it('creates a table through the form', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.goto(`${baseUrl}/dashboard/tables`);
    await signIn(page);
    await page.getByRole('heading', { name: 'Tables' }).waitFor();
    await page
      .getByRole('row', { name: new RegExp(BIG) })
      .getByRole('cell', { name: String(BIG_ROWS) })
      .waitFor();
    await browser.screenshot('tables-list');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Create table' }).click();
    const form = page.getByRole('dialog', { name: 'Create a table' });
    await form.getByLabel('Table name').fill(TABLE);
    const columns = [
      ['title', 'string'],
      ['details', 'json'],
      ['due', 'datetime'],
      ['done', 'boolean'],
      ['mood', 'note_mood'],
      ['author_id', 'uuid'],
    ];
    for (const [i, [name, type]] of columns.entries()) {
      const n = i + 1;
      if (n > 1) await form.getByRole('button', { name: 'Add a column' }).click();
      await form.getByLabel(`Column ${n} name`).fill(name!);
      await form.getByLabel(`Column ${n} type`).fill(type!);
      await form.getByLabel(`Column ${n} type`).press('Tab');
    }
    await form.getByLabel('Column 1 NULL allowed').uncheck();
    await form.getByLabel('Column 6 references').selectOption('authors');
    await browser.screenshot('tables-create-form');
    expect(await browser.seriousViolations()).toEqual([]);
    await form.getByRole('button', { name: 'Create table' }).click();

    await page.getByRole('heading', { name: TABLE }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/tables/${TABLE}`);
    await page.getByText('No rows', { exact: true }).waitFor();
    const schema = await api('GET', `/api/database/tables/${TABLE}/schema`);
    const byName = Object.fromEntries(schema.columns.map((c: any) => [c.columnName, c]));
    expect(byName.title).toMatchObject({ type: 'text', isNullable: false });
    expect(byName.details.type).toBe('jsonb');
    expect(byName.due.type).toBe('timestamp with time zone');
    expect(byName.mood.enumValues).toEqual(['calm', 'busy', 'late']);
    expect(byName.author_id.foreignKey).toMatchObject({ referenceTable: 'authors', referenceColumn: 'id' });
    expect(schema.rlsEnabled).toBe(true);
  });

  it('inserts rows with type-aware inputs, edits one, deletes one, filters and sorts', {
    timeout: 90_000,
  }, async () => {
    const { page } = browser;
    const grid = page.getByRole('table', { name: `Rows of ${TABLE}` });

    const insert = async (title: string, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>) => {
      await page.getByRole('button', { name: 'Insert row' }).click();
      const dialog = page.getByRole('dialog', { name: `Insert a row into ${TABLE}` });
      await dialog.getByLabel('title (text)', { exact: true }).fill(title);
      await fill(dialog);
      await dialog.getByRole('button', { name: 'Insert row' }).click();
      await dialog.waitFor({ state: 'detached' });
      await grid.getByRole('cell', { name: title, exact: true }).waitFor();
    };

    await insert('First note', async (dialog) => {
      const details = dialog.getByLabel('details (jsonb)', { exact: true });
      await details.fill('{"tags": ["a"');
      await dialog.getByText('Not valid JSON').waitFor();
      await dialog.getByRole('button', { name: 'Insert row' }).click();
      await dialog.getByRole('alert').getByText('details: Not valid JSON').waitFor();
      await details.fill('{"tags": ["a", "b"], "pages": 3}');
      await dialog.getByLabel('due (timestamp with time zone), UTC').fill('2026-11-25T10:30:15');
      await dialog.getByLabel('done (boolean)', { exact: true }).selectOption('true');
      await dialog.getByLabel('mood (note_mood)', { exact: true }).selectOption('busy');
      const lookup = dialog.getByLabel('Look up author_id in authors');
      await lookup.fill('ad');
      await page.getByRole('option', { name: `Ada (${adaId})` }).click();
      expect(await dialog.getByLabel('author_id (uuid)', { exact: true }).inputValue()).toBe(adaId);
      await browser.screenshot('tables-row-editor');
      expect(await browser.seriousViolations()).toEqual([]);
    });
    await insert('Second note', async (dialog) => {
      await dialog.getByLabel('details (jsonb)', { exact: true }).fill('[1, 2]');
      await dialog.getByLabel('done (boolean)', { exact: true }).selectOption('false');
    });
    await insert('Third note', async () => {});
    await page.getByText('3 rows', { exact: true }).waitFor();

    // Edit the first row's title.
    await grid
      .getByRole('row', { name: /First note/ })
      .getByRole('button', { name: /^Edit row/ })
      .click();
    const editor = page.getByRole('dialog', { name: `Edit row of ${TABLE}` });
    expect(await editor.getByLabel('due (timestamp with time zone), UTC').inputValue()).toBe('2026-11-25T10:30:15');
    await editor.getByLabel('title (text)', { exact: true }).fill('First note, edited');
    await editor.getByRole('button', { name: 'Save row' }).click();
    await grid.getByRole('cell', { name: 'First note, edited', exact: true }).waitFor();

    // Delete the third, through the confirmation.
    await grid
      .getByRole('row', { name: /Third note/ })
      .getByRole('button', { name: /^Delete row/ })
      .click();
    const confirm = page.getByRole('dialog', { name: 'Delete this row?' });
    await browser.screenshot('tables-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete row' }).click();
    await page.getByText('2 rows', { exact: true }).waitFor();
    expect(await grid.getByRole('cell', { name: 'Third note', exact: true }).count()).toBe(0);

    const rows = await api('GET', `/api/database/records/${TABLE}?order=title.asc`);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      title: 'First note, edited',
      details: { tags: ['a', 'b'], pages: 3 },
      done: true,
      mood: 'busy',
      author_id: adaId,
    });
    expect(new Date(rows[0].due).toISOString()).toBe('2026-11-25T10:30:15.000Z');
    expect(rows[1]).toMatchObject({ title: 'Second note', details: [1, 2], done: false, due: null });

    // Every write went through the audited admin record route.
    await t.app.logs!.flush();
    const audits = (await api('GET', '/api/logs/audits?module=DATABASE')) as { action: string }[];
    const route = '/api/database/admin/tables/:table/records';
    const actions = audits.map((a) => a.action);
    expect(actions.filter((a) => a === `POST ${route}`)).toHaveLength(3);
    expect(actions.filter((a) => a === `PATCH ${route}`)).toHaveLength(1);
    expect(actions.filter((a) => a === `DELETE ${route}`)).toHaveLength(1);

    // Filter server-side (ilike), then clear it.
    await page.getByLabel('Filter column').selectOption('title');
    await page.getByLabel('Operator').selectOption('ilike');
    await page.getByLabel('Filter value').fill('*second*');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByText('1 row matches the filters').waitFor();
    expect(await grid.getByRole('cell', { name: 'First note, edited' }).count()).toBe(0);
    await browser.screenshot('tables-grid-filtered');
    await page.getByRole('button', { name: 'Remove filter title ilike *second*' }).click();
    await page.getByText('2 rows', { exact: true }).waitFor();

    // "is null" takes no value.
    await page.getByLabel('Filter column').selectOption('due');
    await page.getByLabel('Operator').selectOption('is.null');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByText('1 row matches the filters').waitFor();
    await grid.getByRole('cell', { name: 'Second note', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove filter due is.null' }).click();
    await page.getByText('2 rows', { exact: true }).waitFor();

    // Sort by title, ascending then descending.
    const firstRow = grid.locator('tbody tr[aria-rowindex="2"]');
    const titleHeader = grid.getByRole('button', { name: /^title/ });
    await titleHeader.click();
    await grid.locator('th[aria-sort="ascending"]').waitFor();
    await firstRow.getByRole('cell', { name: 'First note, edited', exact: true }).waitFor();
    await titleHeader.click();
    await grid.locator('th[aria-sort="descending"]').waitFor();
    await firstRow.getByRole('cell', { name: 'Second note', exact: true }).waitFor();
    await browser.screenshot('tables-grid');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await browser.screenshot('tables-grid-dark');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  });

  it('adds a column, shows the indexes, warns of RLS without policy, creates a policy', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Structure' }).click();
    await page.getByRole('button', { name: 'Add column' }).click();
    const dialog = page.getByRole('dialog', { name: `Add a column to ${TABLE}` });
    await dialog.getByLabel('Column name').fill('priority');
    await dialog.getByLabel('Type').fill('integer');
    await dialog.getByLabel('Type').press('Tab');
    await dialog.getByLabel('Default (SQL expression)').fill('3');
    await dialog.getByRole('button', { name: 'Add column' }).click();
    const columns = page.getByRole('table', { name: `Columns of ${TABLE}` });
    await columns.getByRole('cell', { name: 'priority', exact: true }).waitFor();
    await browser.screenshot('tables-structure');
    expect(await browser.seriousViolations()).toEqual([]);
    const schema = await api('GET', `/api/database/tables/${TABLE}/schema`);
    expect(schema.columns.find((c: any) => c.columnName === 'priority')).toMatchObject({
      type: 'integer',
      defaultValue: '3',
    });

    await page.getByRole('tab', { name: 'Indexes and triggers' }).click();
    await page
      .getByRole('table', { name: `Indexes of ${TABLE}` })
      .getByRole('cell', { name: `${TABLE}_pkey`, exact: true })
      .waitFor();
    await browser.screenshot('tables-indexes-triggers');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('tab', { name: 'Row-level security' }).click();
    await page.getByText('RLS is on but this table has no policy').waitFor();
    await browser.screenshot('tables-rls-no-policy');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByLabel('Policy name').fill('notes readable');
    await page.getByLabel('Command').selectOption('SELECT');
    await page.getByLabel('Using (rows a caller may see or change)').fill('done');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const policies = page.getByRole('table', { name: `Policies of ${TABLE}` });
    await policies.getByRole('cell', { name: 'notes readable' }).waitFor();
    expect(await page.getByText('RLS is on but this table has no policy').count()).toBe(0);
    await browser.screenshot('tables-rls-policy');
    expect(await browser.seriousViolations()).toEqual([]);

    const listed = await api('GET', '/api/database/policies');
    expect(listed.policies).toContainEqual(
      expect.objectContaining({
        tableName: TABLE,
        policyName: 'notes readable',
        command: 'SELECT',
        roles: ['authenticated'],
      }),
    );
    // The policy works for a signed-in user: they see the row with done = true only.
    const user = await t.signUp();
    const seen = await t.request({
      method: 'GET',
      url: `/api/database/records/${TABLE}?select=title`,
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect(seen.json).toEqual([{ title: 'First note, edited' }]);
  });

  it('scrolls a 100,000-row table to its last row', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Tables' }).first().click();
    await page.getByRole('link', { name: BIG }).click();
    await page.getByText(`${BIG_ROWS} rows`, { exact: true }).waitFor();
    const grid = page.getByRole('table', { name: `Rows of ${BIG}` });
    await grid.getByRole('button', { name: /^n/ }).click();
    await grid.locator('th[aria-sort="ascending"]').waitFor();
    await grid.getByRole('cell', { name: '1', exact: true }).waitFor();
    // Virtualised: a few dozen rows in the document, not 100,000.
    expect(await grid.locator('tbody tr').count()).toBeLessThan(100);

    const region = page.getByRole('region', { name: `Scrollable rows of ${BIG}` });
    await region.evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
    await grid
      .getByRole('cell', { name: /^500\d\d$/ })
      .first()
      .waitFor();
    await region.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await grid.getByRole('cell', { name: String(BIG_ROWS), exact: true }).waitFor();
    expect(await grid.locator(`tbody tr[aria-rowindex="${BIG_ROWS + 1}"]`).count()).toBe(1);
    expect(await grid.locator('tbody tr').count()).toBeLessThan(100);
    await browser.screenshot('tables-big-grid-end');
    expect(await browser.seriousViolations()).toEqual([]);
  });

  it('works on a 390-px-wide phone', { timeout: 60_000 }, async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      const { page } = phone;
      await page.goto(`${baseUrl}/dashboard/tables/${TABLE}`);
      await signIn(page);
      await page
        .getByRole('table', { name: `Rows of ${TABLE}` })
        .getByRole('cell', { name: 'Second note' })
        .waitFor();
      // The page itself does not scroll sideways: wide grids scroll inside their own region.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot('tables-grid-phone');
      expect(await phone.seriousViolations()).toEqual([]);
      await page.getByRole('tab', { name: 'Row-level security' }).click();
      await page.getByRole('table', { name: `Policies of ${TABLE}` }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot('tables-rls-phone');
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
