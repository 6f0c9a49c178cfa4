// One live Plinth (listening on a free port, with the built dashboard) and one Chromium for a
// browser test file, with what every screen test does: call the API as the admin, sign in
// through the form, open a screen by its address, and check a screen (screenshot, axe clean).
import { existsSync } from 'node:fs';
import { expect } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);

export interface LiveDashboard {
  t: TestApp;
  baseUrl: string;
  browser: BrowserSession;
  /** A request with the API key (the admin). */
  api(method: string, url: string, payload?: unknown): ReturnType<TestApp['request']>;
  /** Signs the admin in through the form at a screen's address; resolves once the shell shows. */
  signIn(session: BrowserSession, path: string): Promise<void>;
  /** Opens a screen by its address (the session resumes from its cookie), as after a reload. */
  visit(path: string): Promise<void>;
  /** A screenshot of the page, then no serious or critical axe-core violation on it. */
  screenIsClean(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveDashboard(env: Record<string, string> = {}): Promise<LiveDashboard> {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { API_BASE_URL: baseUrl, ...env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await openBrowser();
  return {
    t,
    baseUrl,
    browser,
    api: (method, url, payload) =>
      t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object }),
    async signIn(session, path) {
      await signInAsAdmin(session.page, `${baseUrl}/dashboard${path}`);
      await session.page.getByRole('button', { name: 'Sign out' }).waitFor();
    },
    async visit(path) {
      await browser.page.goto(`${baseUrl}/dashboard${path}`);
    },
    async screenIsClean(name) {
      await browser.screenshot(name);
      expect(await browser.seriousViolations()).toEqual([]);
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
