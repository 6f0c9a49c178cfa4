// The dashboard in a real browser against a live Plinth: the admin signs in, sees the overview's
// health and counts, opens Tables, finds a table this test made with its row count, sorts its
// rows, survives a reload (cookie session); light and dark themes; a phone-sized window;
// no console errors; no serious or critical axe-core violations; a screenshot of each screen.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, TEST_ADMIN, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser } from './browser.js';

const TABLE = 'dashboard_books';
const ROWS = 60;
const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);

let t: TestApp;
let baseUrl = '';
let browser: BrowserSession;

const asAdmin = { 'x-api-key': '' };

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl } });
  await t.app.listen({ port, host: '127.0.0.1' });
  asAdmin['x-api-key'] = t.apiKey;

  const created = await t.request({
    method: 'POST',
    url: '/api/database/tables',
    headers: asAdmin,
    payload: {
      tableName: TABLE,
      columns: [
        { columnName: 'title', type: 'string', isNullable: false },
        { columnName: 'position', type: 'integer', isNullable: false },
        { columnName: 'meta', type: 'json', isNullable: true },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    title: `Book ${i + 1}`,
    position: i + 1,
    meta: { shelf: i % 3 },
  }));
  const inserted = await t.request({
    method: 'POST',
    url: `/api/database/records/${TABLE}`,
    headers: { ...asAdmin, prefer: 'return=minimal' },
    payload: rows,
  });
  expect(inserted.statusCode, inserted.body).toBe(201);
  await t.signUp();
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the dashboard in Chromium', () => {
  it('signs the admin in and shows health and the counts the API reports', { timeout: 120_000 }, async () => {
    const { page } = browser;
    await page.goto(`${baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await page.getByRole('heading', { name: 'Plinth dashboard' }).waitFor();
    await browser.screenshot('sign-in');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByLabel('Admin email').fill(TEST_ADMIN.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    const metadata = (await t.request({ method: 'GET', url: '/api/metadata', headers: asAdmin })).json;
    const users = (await t.request({ method: 'GET', url: '/api/auth/users?limit=1', headers: asAdmin })).json;
    const expected = {
      Users: users.pagination.total,
      Tables: metadata.database.totalTables,
      Buckets: metadata.storage.buckets.length,
      Functions: metadata.functions.functions.length,
    };
    expect(expected.Users).toBeGreaterThanOrEqual(1);
    expect(expected.Tables).toBeGreaterThanOrEqual(1);
    for (const [label, value] of Object.entries(expected)) {
      const card = page.getByRole('group', { name: label });
      await card.getByText(String(value), { exact: true }).waitFor();
    }
    await page.getByText('Server ok').waitFor();
    await page.getByText(/Version \d+\.\d+\.\d+/).waitFor();
    // The charts (a lazy chunk): each card's summary is its route's numbers.
    const auth = (await t.request({ method: 'GET', url: '/api/insights/auth?range=day', headers: asAdmin })).json;
    const signUps = auth.points.reduce((n: number, p: { signUps: number }) => n + p.signUps, 0);
    expect(signUps).toBeGreaterThanOrEqual(1);
    const signUpCard = page.getByRole('figure', { name: 'Sign-ups and sign-ins' });
    await signUpCard.getByText(new RegExp(`^${signUps} sign-ups?,`)).waitFor();
    await page.getByRole('figure', { name: 'Requests' }).locator('.recharts-area').first().waitFor();
    for (const name of ['Error rate', 'Latency', 'Function invocations', 'Realtime', 'Database and storage size']) {
      await page.getByRole('figure', { name }).waitFor();
    }
    await browser.screenshot('overview-light');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe('dark');
    await browser.screenshot('overview-dark');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();

    // A chart links to the logs behind it: the logs screen opens filtered to its source and window.
    await page.locator('label', { hasText: 'Last hour' }).click();
    await page.getByRole('figure', { name: 'Requests' }).getByRole('link', { name: 'Requests in the logs' }).click();
    await page.getByRole('heading', { name: 'Logs' }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/dashboard/logs');
    expect(url.searchParams.get('source')).toBe('requests');
    const from = new Date(url.searchParams.get('from') ?? '');
    expect(Date.now() - from.getTime()).toBeGreaterThan(55 * 60_000);
    expect(Date.now() - from.getTime()).toBeLessThan(65 * 60_000);
    await page.getByRole('link', { name: 'Overview' }).click();
  });

  it('lists the tables with row counts and sorts a table’s rows', { timeout: 120_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Tables' }).click();
    await page.getByRole('heading', { name: 'Tables' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(`${TABLE}`) });
    await row.getByRole('cell', { name: String(ROWS), exact: true }).waitFor();
    await browser.screenshot('tables');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('link', { name: TABLE }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/tables/${TABLE}`);
    // The grid is virtualised (test/browser/tables.test.ts scrolls 100,000 rows): the count comes
    // from the server, the rows as they scroll into view.
    await page.getByText(`${ROWS} rows`, { exact: true }).waitFor();
    const grid = page.getByRole('table', { name: `Rows of ${TABLE}` });
    const firstRow = grid.locator('tbody tr[aria-rowindex="2"]');
    await browser.screenshot('table-grid-first-page');

    // Sort by position (ascending, then descending), server-side.
    await grid.getByRole('button', { name: 'position' }).click();
    await firstRow.getByRole('cell', { name: 'Book 1', exact: true }).waitFor();
    await grid.getByRole('button', { name: /position/ }).click();
    await firstRow.getByRole('cell', { name: 'Book 60', exact: true }).waitFor();
    await grid
      .locator('th[aria-sort="descending"]')
      .getByRole('button', { name: /position/ })
      .waitFor();
    await browser.screenshot('table-grid');
    expect(await browser.seriousViolations()).toEqual([]);

    // A reload keeps the session (refresh cookie + CSRF token) and the client route.
    await page.reload();
    await page.getByText(`${ROWS} rows`, { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/tables/${TABLE}`);
  });

  it('works on a 390-px-wide phone: navigation behind the menu button', { timeout: 120_000 }, async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      const { page } = phone;
      await page.goto(`${baseUrl}/dashboard/tables`);
      await page.getByLabel('Admin email').fill(TEST_ADMIN.email);
      await page.getByRole('textbox', { name: 'Password' }).fill(TEST_ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Tables' }).waitFor();
      await page.getByRole('link', { name: TABLE }).waitFor();
      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await page.getByRole('link', { name: 'Overview' }).click();
      await page.getByRole('group', { name: 'Users' }).waitFor();
      await phone.screenshot('overview-phone');
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
