// What users and functions control never runs as the dashboard's origin, in Chromium with a
// signed-in admin: HTML uploaded to storage (S3 gateway presigned URL, signed URL, public bucket)
// is a download, a function echoing a query parameter into HTML is a sandboxed opaque-origin page
// that cannot reach the admin's session; another origin cannot frame the dashboard; and the
// dashboard keeps no token where script can read it, yet survives a reload.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FunctionsApp, startFunctionsApp } from '../harness/functions-app.js';
import { type S3Peer, startS3Peer } from '../harness/s3-peer.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);

/**
 * What an attacker's page would do as the dashboard's origin: mark localStorage, take the admin
 * session from the refresh cookie and read the API key with it, and report to a URL we watch.
 */
const STEAL = `<script>
(async () => {
  try { localStorage.setItem('pwned', document.domain || 'opaque'); } catch {}
  try { parent.document.title = 'pwned'; } catch {}
  const refresh = await fetch('/api/auth/admin/refresh?client_type=web', {
    method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}',
  }).then((r) => r.json()).catch(() => ({}));
  const key = refresh.accessToken
    ? await fetch('/api/metadata/api-key', { headers: { authorization: 'Bearer ' + refresh.accessToken } }).then((r) => r.text())
    : 'none';
  await fetch('/stolen?origin=' + encodeURIComponent(origin) + '&token=' + (refresh.accessToken ?? 'none') + '&key=' + encodeURIComponent(key));
})();
</script>`;

let t: FunctionsApp;
let peer: S3Peer;
let browser: BrowserSession;
/** Every /stolen report Chromium sent: what the attack got. */
const stolen: URL[] = [];
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  // The S3 gateway speaks for the S3 backend: a real S3 server on loopback.
  peer = await startS3Peer();
  t = await startFunctionsApp(peer.env);
  browser = await openBrowser();
  browser.page.context().on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/stolen') stolen.push(url);
  });
  await t.deploy(
    'hello',
    `export default (req) => new Response('<h1>Hello ' + new URL(req.url).searchParams.get('name') + '</h1>', {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });`,
    { verifyJwt: false },
  );
  for (const [bucketName, isPublic] of [
    ['avatars', true],
    ['private-files', false],
  ] as const) {
    const created = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName, isPublic },
    });
    expect(created.statusCode).toBeLessThan(300);
    const put = await t.request({
      method: 'PUT',
      url: `/api/storage/buckets/${bucketName}/objects/avatar.html`,
      headers: { ...admin(), 'content-type': 'text/html' },
      payload: STEAL,
    });
    expect(put.statusCode).toBeLessThan(300);
  }
  await signInAsAdmin(browser.page, `${t.baseUrl}/dashboard/`);
  await browser.page.getByRole('button', { name: 'Sign out' }).waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await peer?.close();
});

/** Opens `url` in a new tab of the admin's browser; resolves with whether it was a download. */
async function openAsAdmin(url: string): Promise<{ page: Page; downloaded: boolean }> {
  const page = await browser.page.context().newPage();
  const download = page.waitForEvent('download', { timeout: 5_000 }).then(
    () => true,
    () => false,
  );
  const answer = await page.goto(url).catch(() => null);
  // A document that renders gets its chance to run; an attachment never renders.
  const downloaded = answer === null ? await download : false;
  if (!downloaded) await page.waitForLoadState('load');
  return { page, downloaded };
}

/** What the dashboard's origin holds that the attack would have left behind. */
async function dashboardOriginIsClean() {
  const { page } = browser;
  await page.goto(`${t.baseUrl}/dashboard/`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  expect(await page.evaluate(() => localStorage.getItem('pwned'))).toBeNull();
  expect(stolen).toEqual([]);
}

describe('stored HTML opened by a signed-in admin', () => {
  it('through an S3 gateway presigned URL, a signed URL or a public bucket: a download that never runs', async () => {
    const keys = await t.request({
      method: 'POST',
      url: '/api/storage/s3/access-keys',
      headers: admin(),
      payload: { description: 'origins' },
    });
    const s3 = new S3Client({
      endpoint: `${t.baseUrl}/storage/v1/s3`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: keys.json.accessKeyId, secretAccessKey: keys.json.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    // The finding's way in: a presigned PUT that declares text/html.
    const putUrl = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: 'avatars', Key: 'me.html', ContentType: 'text/html' }),
    );
    expect((await fetch(putUrl, { method: 'PUT', body: STEAL, headers: { 'content-type': 'text/html' } })).status).toBe(
      200,
    );
    const gatewayUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'avatars', Key: 'me.html' }));
    s3.destroy();
    const strategy = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/private-files/download-strategy/objects/avatar.html',
      headers: admin(),
    });
    const signedUrl = new URL(strategy.json.url, t.baseUrl).href;
    expect(signedUrl).toContain('token=');
    const publicUrl = `${t.baseUrl}/api/storage/buckets/avatars/objects/avatar.html`;
    for (const url of [gatewayUrl, signedUrl, publicUrl]) {
      const { page, downloaded } = await openAsAdmin(url);
      expect(downloaded, url).toBe(true);
      await page.close();
    }
    await dashboardOriginIsClean();
  });
});

describe('a function that echoes a query parameter into HTML', () => {
  it('is a sandboxed document of an opaque origin: its script never runs, reaches no storage and no session', async () => {
    const { page, downloaded } = await openAsAdmin(`${t.baseUrl}/functions/hello?name=${encodeURIComponent(STEAL)}`);
    expect(downloaded).toBe(false);
    // The attacker's script is in the page, as the function echoed it…
    expect(await page.locator('h1 > script').count()).toBe(1);
    // …but never ran (looked at through DevTools: the page's own script may not run at all).
    expect(await page.evaluate(() => [origin, document.domain])).toEqual(['null', '']);
    expect(
      await page.evaluate(() => {
        try {
          return localStorage.length;
        } catch (err) {
          return (err as Error).name;
        }
      }),
    ).toBe('SecurityError');
    await page.close();
    await dashboardOriginIsClean();
  });
});

describe('the dashboard', () => {
  it('cannot be framed by a page of another origin', async () => {
    // The attacker's site: another origin on loopback (*.localhost resolves there in Chromium).
    const site = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<iframe src="${t.baseUrl}/dashboard/"></iframe>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const attacker = `http://attacker.localhost:${(site.address() as AddressInfo).port}/`;
    const page = await browser.page.context().newPage();
    await page.goto(attacker);
    const frame = await (await page.locator('iframe').elementHandle())!.contentFrame();
    await frame!.waitForLoadState('load');
    // Chromium refuses to render it: an error page stands in the frame, not the dashboard.
    expect(frame!.url()).toBe('chrome-error://chromewebdata/');
    expect(await frame!.locator('#root').count()).toBe(0);
    await page.close();
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  });

  it('keeps no token where script can read it, and a reload still resumes the session', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin email').waitFor();
    const answer = page.waitForResponse((res) => res.url().includes('/api/auth/admin/sessions'));
    await signInAsAdmin(page);
    const { csrfToken, accessToken } = await (await answer).json();
    expect(csrfToken).toEqual(expect.any(String));
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const readable = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }),
    );
    expect(readable).not.toContain(csrfToken);
    expect(readable).not.toContain(accessToken);
    // The refresh cookie is httpOnly and goes only to the admin session routes.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'svc_admin_refresh_token');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/api/auth/admin' });
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(`${t.baseUrl}/dashboard/functions`);
    await page.getByRole('link', { name: 'hello' }).waitFor();
    expect(browser.errors).toEqual([]);
  });
});
