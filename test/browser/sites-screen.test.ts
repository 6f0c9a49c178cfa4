// The dashboard's Sites screen in Chromium against a live Plinth: the site's address, the
// deployments with the live one marked, a build log, rolling back with one click, the SPA fallback
// switch and a custom domain added and removed; axe clean, no console errors.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

let live: LiveDashboard;
const ids: string[] = [];

const sha1 = (data: string) => createHash('sha1').update(data).digest('hex');

async function deploy(html: string, start: object = {}) {
  live.t.clock.advance(1000);
  const created = await live.api('POST', '/api/deployments/direct', {
    files: [{ path: 'index.html', sha: sha1(html), size: Buffer.byteLength(html) }],
  });
  for (const f of created.json.files) {
    await live.t.request({
      method: 'PUT',
      url: `/api/deployments/${created.json.id}/files/${f.fileId}/content`,
      headers: { 'x-api-key': live.t.apiKey, 'content-type': 'application/octet-stream' },
      payload: Buffer.from(html),
    });
  }
  const started = await live.api('POST', `/api/deployments/${created.json.id}/start`, start);
  expect(started.statusCode, started.body).toBe(200);
  return created.json.id as string;
}

beforeAll(async () => {
  live = await startLiveDashboard();
  ids.push(await deploy('<title>first</title>'));
  ids.push(await deploy('<title>second</title>'));
}, 60_000);
afterAll(() => live?.close());

describe('the Sites screen in Chromium', { timeout: 60_000 }, () => {
  it('shows the site and its deployments, and rolls back with one click', async () => {
    const { page } = live.browser;
    await live.signIn(live.browser, '/sites');
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    await page.getByRole('link', { name: 'http://app.localhost:7130' }).waitFor();
    const table = page.getByRole('table', { name: 'Deployments' });
    await table.getByText(ids[1]!.slice(0, 8)).waitFor();
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(3);
    await expect.poll(() => rows.nth(1).textContent()).toContain('live');
    await live.screenIsClean('sites-screen');

    await page.getByRole('button', { name: `Make live: ${ids[0]!.slice(0, 8)}` }).click();
    await expect
      .poll(async () => (await live.api('GET', '/api/deployments/metadata')).json.currentDeploymentId)
      .toBe(ids[0]);
    await expect.poll(() => rows.nth(2).textContent()).toContain('live');
    const served = await live.t.request({ method: 'GET', url: '/', headers: { host: 'app.localhost' } });
    expect(served.body).toContain('<title>first</title>');
  });

  it('opens a build log', async () => {
    const { page } = live.browser;
    await page.getByRole('button', { name: `Build log of ${ids[0]!.slice(0, 8)}` }).click();
    const dialog = page.getByRole('dialog', { name: `Build log of ${ids[0]!.slice(0, 8)}` });
    await dialog.getByText('No build: this deployment was published as uploaded.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('switches the SPA fallback and adds and removes a custom domain', async () => {
    const { page } = live.browser;
    await page.getByRole('switch', { name: /Single-page app/ }).click();
    await expect.poll(async () => (await live.api('GET', '/api/deployments/site')).json.spaFallback).toBe(true);

    await page.getByRole('textbox', { name: 'Domain' }).fill('www.example.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('www.example.test', { exact: true }).waitFor();
    expect((await live.api('GET', '/api/deployments/site')).json.domains).toEqual(['www.example.test']);
    await live.screenIsClean('sites-screen-domain');

    await page.getByRole('button', { name: 'Remove www.example.test' }).click();
    await page
      .getByRole('dialog', { name: 'Remove www.example.test?' })
      .getByRole('button', { name: 'Remove domain' })
      .click();
    await expect.poll(async () => (await live.api('GET', '/api/deployments/site')).json.domains).toEqual([]);
    expect(live.browser.errors).toEqual([]);
  });
});
