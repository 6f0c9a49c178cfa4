// The SQL editor, migrations and logs screens in Chromium against a live Plinth: the admin runs a
// query and reads the rows, dry-runs a DROP and sees the risk, runs unrestricted behind its warning,
// saves a snippet and finds it after a reload, applies a migration (dry run first) and finds it in
// the history with its SQL, finds a request by its id with its audit entry, and watches a new
// request appear in the live tail (paused and resumed). axe-clean, screenshots, a phone width.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);
const TABLE = 'sql_screen_books';

let t: TestApp;
let baseUrl = '';
let browser: BrowserSession;
const asAdmin = () => ({ 'x-api-key': t.apiKey });

/** A real HTTP request from outside the browser, under a request id of the test's choosing. */
async function requestWithId(requestId: string, init: { method: string; path: string; body?: unknown }) {
  const res = await fetch(`${baseUrl}${init.path}`, {
    method: init.method,
    headers: { 'x-api-key': t.apiKey, 'x-request-id': requestId, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res;
}

const signIn = (page: Page, path: string) => signInAsAdmin(page, `${baseUrl}/dashboard${path}`);

/** Replaces the text of the CodeMirror editor named `label`. */
async function typeSql(page: Page, label: string, sql: string) {
  const editor = page.getByRole('textbox', { name: label, exact: true });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
}

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const made = await t.request({
    method: 'POST',
    url: '/api/database/advance/rawsql',
    headers: asAdmin(),
    payload: {
      query: `create table ${TABLE} (id int primary key, title text not null);
              insert into ${TABLE} select g, 'Book ' || g from generate_series(1, 5) g`,
    },
  });
  expect(made.statusCode, made.body).toBe(200);
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('SQL editor, migrations and logs in Chromium', () => {
  it('runs a query and shows the rows, dry-runs a DROP and shows the risk', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await signIn(page, '/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'SQL editor' }).click();
    await page.getByRole('heading', { name: 'SQL editor' }).waitFor();

    await typeSql(page, 'SQL', `select id, title from ${TABLE} where id >= 4 order by id`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const grid = page.getByRole('table', { name: 'Query results' });
    await grid.getByRole('cell', { name: 'Book 5', exact: true }).waitFor();
    expect(await grid.locator('tbody tr').count()).toBe(2);
    expect(await grid.locator('thead th').allTextContents()).toEqual(['id', 'title']);
    await page.getByText('2 rows', { exact: true }).waitFor();
    await browser.screenshot('sql-editor-results');
    expect(await browser.seriousViolations()).toEqual([]);

    await typeSql(page, 'SQL', `drop table ${TABLE}`);
    await page.getByRole('button', { name: 'Dry run' }).click();
    const report = page.getByRole('status', { name: 'Dry run: DANGER' });
    await report.waitFor();
    await report.getByText(/DESTRUCTIVE_DATA_LOSS/).waitFor();
    await report.getByText(`drop table ${TABLE}`).waitFor();
    await browser.screenshot('sql-editor-dry-run');
    expect(await browser.seriousViolations()).toEqual([]);
    // The dry run rolled back: the table and its rows are still there.
    const count = await t.request({
      method: 'POST',
      url: '/api/database/advance/rawsql',
      headers: asAdmin(),
      payload: { query: `select count(*)::int as n from ${TABLE}` },
    });
    expect(count.json.rows).toEqual([{ n: 5 }]);

    // The history keeps both, newest first.
    await page.getByRole('tab', { name: 'History' }).click();
    const history = page.getByRole('list', { name: 'Query history' });
    await history.getByText(`select id, title from ${TABLE} where id >= 4 order by id`).waitFor();
  });

  it('runs unrestricted only behind a red warning and a confirmation', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('radio', { name: /Unrestricted/ }).check();
    await page
      .getByRole('alert')
      .getByText(/row-level security does not apply/)
      .waitFor();
    await typeSql(page, 'SQL', "select current_setting('role') as role_setting, 42 as answer");
    await page.getByRole('button', { name: 'Run unrestricted' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run as the database owner?' });
    await dialog.waitFor();
    await browser.screenshot('sql-editor-unrestricted-confirm');
    await dialog.getByRole('button', { name: 'Run unrestricted' }).click();
    const grid = page.getByRole('table', { name: 'Query results' });
    await grid.getByRole('cell', { name: '42', exact: true }).waitFor();
    await grid.getByRole('cell', { name: 'none', exact: true }).waitFor();
    await page.getByText('1 row (unrestricted)').waitFor();
    // The warning, the editor and the grid in the dark theme.
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    await browser.screenshot('sql-editor-unrestricted-dark');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await page.getByRole('button', { name: 'Switch to dark theme' }).waitFor();
    await page.getByRole('radio', { name: /Project admin/ }).check();
  });

  it('saves a snippet on the server and finds it after a reload; deletes one when confirmed', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    const sql = `select title from ${TABLE} order by id desc limit 1`;
    await typeSql(page, 'SQL', sql);
    await page.getByRole('tab', { name: 'Snippets' }).click();
    await page.getByLabel('Snippet name').fill('Latest book');
    await page.getByRole('button', { name: 'Save snippet' }).click();
    const list = page.getByRole('list', { name: 'Saved snippets' });
    await list.getByText('Latest book').waitFor();
    const stored = await t.request({ method: 'GET', url: '/api/database/snippets', headers: asAdmin() });
    expect(stored.json.snippets).toEqual([expect.objectContaining({ name: 'Latest book', sql })]);

    await page.reload();
    await page.getByRole('heading', { name: 'SQL editor' }).waitFor();
    await typeSql(page, 'SQL', 'select 1');
    await page.getByRole('button', { name: 'Load Latest book' }).click();
    await page.getByRole('textbox', { name: 'SQL', exact: true }).getByText(sql).waitFor();
    // Ctrl+Enter in the editor runs it.
    await page.getByRole('textbox', { name: 'SQL', exact: true }).click();
    await page.keyboard.press('Control+Enter');
    await page.getByRole('table', { name: 'Query results' }).getByRole('cell', { name: 'Book 5' }).waitFor();
    await browser.screenshot('sql-editor-snippets');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Delete Latest book' }).click();
    const dialog = page.getByRole('dialog', { name: /Delete the snippet/ });
    await dialog.getByRole('button', { name: 'Delete snippet' }).click();
    await page.getByText('No saved snippets').waitFor();
    const after = await t.request({ method: 'GET', url: '/api/database/snippets', headers: asAdmin() });
    expect(after.json.snippets).toEqual([]);
  });

  it('applies a migration after its dry run and shows it in the history with its SQL', {
    timeout: 60_000,
  }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Migrations' }).click();
    await page.getByRole('heading', { name: 'Migrations', level: 1 }).waitFor();
    await page.getByText('No migrations applied yet').waitFor();
    await browser.screenshot('migrations-empty');
    expect(await browser.seriousViolations()).toEqual([]);

    // A statement that fails is marked at its line, and applying stays off.
    await page.getByLabel('Migration name').fill('add-authors');
    await typeSql(page, 'Migration SQL', 'create table authors (id int primary key);\nselect * from no_such_table;');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByText('would fail').waitFor();
    await page.locator('.cm-error-line', { hasText: 'no_such_table' }).waitFor();
    expect(await page.getByRole('button', { name: 'Apply migration' }).isDisabled()).toBe(true);

    const statement = 'create table authors (id int primary key, name text not null)';
    const sql = `${statement};`;
    await typeSql(page, 'Migration SQL', sql);
    expect(await page.getByRole('button', { name: 'Apply migration' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByRole('status', { name: 'Dry run: SAFE' }).waitFor();
    await page.getByRole('button', { name: 'Apply migration' }).click();
    await page.getByText(/Applied \d+ add-authors \(1 statement\)/).waitFor();
    // The form is ready for the next one: an empty editor, applying off until the next dry run.
    expect(await page.getByRole('textbox', { name: 'Migration SQL', exact: true }).textContent()).toBe('');
    expect(await page.getByRole('button', { name: 'Apply migration' }).isDisabled()).toBe(true);

    const history = (await t.request({ method: 'GET', url: '/api/database/migrations', headers: asAdmin() })).json;
    expect(history.migrations).toEqual([expect.objectContaining({ name: 'add-authors', statements: [statement] })]);
    const columns = await t.request({ method: 'GET', url: '/api/metadata/authors', headers: asAdmin() });
    expect(columns.statusCode).toBe(200);

    await page.getByRole('button', { name: /add-authors/ }).click();
    await page.getByLabel('Statement 1 of add-authors').getByText(statement).waitFor();
    await browser.screenshot('migrations-history');
    expect(await browser.seriousViolations()).toEqual([]);
  });

  it('finds a request by its id with its audit entry', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const requestId = `browser-${randomUUID()}`;
    await requestWithId(requestId, {
      method: 'POST',
      path: '/api/database/snippets',
      body: { name: 'from the test', sql: 'select 2' },
    });
    await t.app.logs!.flush();

    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { name: 'Logs', level: 1 }).waitFor();
    // The browser's own requests are there already (the migration it applied).
    await page.getByRole('table', { name: 'Log lines' }).getByText('POST /api/database/migrations').first().waitFor();
    await browser.screenshot('logs');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByLabel('Request id').fill(requestId);
    await page.getByRole('button', { name: 'Search' }).click();
    const lines = page.getByRole('table', { name: 'Log lines' });
    await page.getByText('Lines 1–2 of 2').waitFor();
    await lines.getByText('POST /api/database/snippets → 201').first().waitFor();

    await lines.getByRole('button', { name: requestId }).first().click();
    const drawer = page.getByRole('dialog', { name: `Request ${requestId}` });
    await drawer.getByRole('heading', { name: 'Request (1)' }).waitFor();
    await drawer.getByRole('heading', { name: 'Audit entries (1)' }).waitFor();
    await drawer.getByRole('heading', { name: 'Function logs (0)' }).waitFor();
    await drawer.getByText('"module": "DATABASE"').waitFor();
    await browser.screenshot('logs-request-drawer');
    expect(await browser.seriousViolations()).toEqual([]);
    await drawer.getByRole('button', { name: 'Close request' }).click();

    // Filtering by level: this request logged no error.
    await page.getByLabel('Level', { exact: true }).first().click();
    await page.getByRole('option', { name: 'Error' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No log lines match').waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
  });

  it('shows a new request in the live tail; pausing holds lines back until resumed', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Live tail' }).click();
    await page.getByRole('button', { name: 'Start live tail' }).click();
    await page.getByRole('status').getByText('Live', { exact: true }).waitFor();

    const first = `tail-${randomUUID()}`;
    await requestWithId(first, { method: 'GET', path: '/api/database/snippets' });
    const live = page.getByRole('table', { name: 'Live log lines' });
    await live.getByRole('button', { name: first }).waitFor();
    await browser.screenshot('logs-live-tail');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Pause' }).click();
    const second = `tail-${randomUUID()}`;
    await requestWithId(second, { method: 'GET', path: '/api/database/snippets' });
    await page.getByText(/new lines? waiting/).waitFor();
    expect(await live.getByRole('button', { name: second }).count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await live.getByRole('button', { name: second }).waitFor();
    await page.getByRole('button', { name: 'Stop live tail' }).click();
    await page.getByRole('status').getByText('Off', { exact: true }).waitFor();
  });

  it('works on a 390-px-wide phone', { timeout: 60_000 }, async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      const { page } = phone;
      for (const [path, heading] of [
        ['/sql', 'SQL editor'],
        ['/migrations', 'Migrations'],
        ['/logs', 'Logs'],
      ] as const) {
        if (path === '/sql') await signIn(page, path);
        else await page.goto(`${baseUrl}/dashboard${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${path} is wider than the phone`).toBeLessThanOrEqual(0);
        await phone.screenshot(`${path.slice(1)}-phone`);
        expect(await phone.seriousViolations()).toEqual([]);
      }
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
