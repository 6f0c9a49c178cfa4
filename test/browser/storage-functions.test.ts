// The Storage and Functions screens in Chromium against a live Plinth with its Deno runtime: the
// admin creates a private bucket, uploads files (file input and a drop) into a folder with
// progress to 100 %, browses folders, previews a PNG, copies a signed URL that works without a
// credential, deletes a file; writes a function, sees a syntax error marked at its line, deploys
// the fix, invokes it, sees the invocation in the live logs and flips verify-JWT. A file above the
// resumable threshold goes through tus and survives a chunk whose connection is cut. Each screen:
// axe clean, a screenshot, no console errors; and a 390-px-wide phone.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FunctionsApp, startFunctionsApp } from '../harness/functions-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const BUILT = new URL('../../dist/dashboard/index.html', import.meta.url);
const BUCKET = 'dash-files';
const FUNCTION = 'greet';

/** A real PNG (RGB, `width`×`height`, one colour), made here so the test owns its bytes. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [200, 40, 90]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const IMAGE = png(6, 4);
const NOTES = 'Notes from the dashboard test.\nSecond line.';
const DROPPED = 'dropped on the zone';

let t: FunctionsApp;
let browser: BrowserSession;
const admin = () => ({ 'x-api-key': t.apiKey });

const signIn = (session: BrowserSession, path: string) => signInAsAdmin(session.page, `${t.baseUrl}/dashboard${path}`);

/** Replaces the CodeMirror document with `code`, typed as text input (no auto-indent). */
async function writeCode(code: string) {
  const { page } = browser;
  const editor = page.getByRole('textbox', { name: 'Function code (TypeScript or JavaScript)' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(code);
  expect((await editor.locator('.cm-line').allTextContents()).join('\n')).toBe(code);
}

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('dist/dashboard is missing: run `npm run build` before the browser tests');
  t = await startFunctionsApp();
  browser = await openBrowser();
  await browser.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the Storage screen', () => {
  it('creates a private bucket and flips its visibility', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await signIn(browser, '/storage');
    await page.getByRole('heading', { name: 'Storage' }).waitFor();
    await page.getByText('No buckets yet').waitFor();
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByLabel('Bucket name').fill(BUCKET);
    await page.getByRole('button', { name: 'Create bucket' }).click();
    const visibility = page.getByRole('switch', { name: `Public: ${BUCKET}` });
    await visibility.waitFor();
    expect(await visibility.isChecked()).toBe(false);
    const buckets = async () =>
      (await t.request({ method: 'GET', url: '/api/storage/buckets', headers: admin() })).json as {
        name: string;
        public: boolean;
      }[];
    expect(await buckets()).toEqual([expect.objectContaining({ name: BUCKET, public: false })]);

    // Settled: the switch is enabled again and shows the stored visibility.
    const settled = (checked: boolean) =>
      page.waitForFunction(
        ([name, on]) => {
          const input = document.querySelector(`input[aria-label="Public: ${name}"]`) as HTMLInputElement | null;
          return input !== null && input.checked === on && !input.disabled;
        },
        [BUCKET, checked] as const,
      );
    await visibility.click({ force: true });
    await settled(true);
    expect(await buckets()).toEqual([expect.objectContaining({ name: BUCKET, public: true })]);
    await visibility.click({ force: true });
    await settled(false);
    expect(await buckets()).toEqual([expect.objectContaining({ name: BUCKET, public: false })]);
    await browser.screenshot('storage-buckets');
    expect(await browser.seriousViolations()).toEqual([]);

    // A second bucket, deleted only once the dialog is confirmed.
    await page.getByLabel('Bucket name').fill('dash-scratch');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('button', { name: 'Delete bucket dash-scratch' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete bucket dash-scratch?' });
    await dialog.getByRole('button', { name: 'Delete bucket' }).click();
    await page.getByRole('link', { name: 'dash-scratch' }).waitFor({ state: 'detached' });
    expect((await buckets()).map((b) => b.name)).toEqual([BUCKET]);
  });

  it('uploads by the file input and by a drop into a folder, to 100 %', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: BUCKET }).click();
    await page.getByRole('heading', { name: `Bucket ${BUCKET}` }).waitFor();
    await page.getByText('This folder is empty').waitFor();
    await page.getByLabel('New folder').fill('docs');
    await page.getByRole('button', { name: 'Open folder' }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/storage/${BUCKET}/docs`);

    await page.getByLabel('Choose files').setInputFiles([
      { name: 'pixel.png', mimeType: 'image/png', buffer: IMAGE },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(NOTES) },
    ]);
    await page.getByText('Uploaded 2 of 2 files').waitFor();
    for (const name of ['pixel.png', 'notes.txt']) {
      expect(await page.getByRole('progressbar', { name: `Upload of ${name}` }).getAttribute('aria-valuenow')).toBe(
        '100',
      );
    }

    await page.getByRole('region', { name: 'Drop files to upload' }).evaluate((zone, text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'dropped.txt', { type: 'text/plain' }));
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, DROPPED);
    await page.getByText('Uploaded 3 of 3 files').waitFor();
    expect(await page.getByRole('progressbar', { name: 'Upload of dropped.txt' }).getAttribute('aria-valuenow')).toBe(
      '100',
    );
    await page.getByRole('button', { name: 'Delete dropped.txt' }).waitFor();

    const listed = await t.request({
      method: 'GET',
      url: `/api/storage/buckets/${BUCKET}/objects?prefix=docs/`,
      headers: admin(),
    });
    const keys = (listed.json.data as { key: string; size: number; mimeType: string }[])
      .map((o) => `${o.key} ${o.size} ${o.mimeType}`)
      .sort();
    expect(keys).toEqual([
      `docs/dropped.txt ${DROPPED.length} text/plain`,
      `docs/notes.txt ${NOTES.length} text/plain`,
      `docs/pixel.png ${IMAGE.length} image/png`,
    ]);
    await browser.screenshot('storage-uploads');
    expect(await browser.seriousViolations()).toEqual([]);
  });

  it('uploads a file above the resumable threshold through tus, resuming after a dropped chunk', {
    timeout: 120_000,
  }, async () => {
    const { page } = browser;
    // 10 MiB: over the 6-MiB threshold (UploadZone.tsx), two PATCHes of at most 8 MiB.
    const big = randomBytes(10 * 1024 * 1024);
    const bigFile = path.join(mkdtempSync(path.join(tmpdir(), 'dash-tus-')), 'big.bin');
    writeFileSync(bigFile, big);
    const seen: string[] = [];
    const onRequest = (request: Request) => {
      if (request.url().includes('/api/storage/uploads/resumable')) seen.push(request.method());
    };
    page.on('request', onRequest);
    // The second PATCH's connection is cut once: the client must ask the server's offset and go on from it.
    let patches = 0;
    await page.route('**/api/storage/uploads/resumable/**', (route) =>
      route.request().method() === 'PATCH' && ++patches === 2 ? route.abort('connectionreset') : route.continue(),
    );
    const errorsBefore = browser.errors.length;
    try {
      // From a file on disk: a 10-MiB buffer sent through the protocol outlasts the action timeout.
      await page.getByLabel('Choose files').setInputFiles(bigFile, { timeout: 60_000 });
      await page.getByText('Uploaded 4 of 4 files').waitFor({ timeout: 100_000 });
    } finally {
      await page.unroute('**/api/storage/uploads/resumable/**');
      page.off('request', onRequest);
      rmSync(path.dirname(bigFile), { recursive: true, force: true });
    }
    expect(await page.getByRole('progressbar', { name: 'Upload of big.bin' }).getAttribute('aria-valuenow')).toBe(
      '100',
    );
    expect(seen).toEqual(['POST', 'PATCH', 'PATCH', 'HEAD', 'PATCH']);
    // The cut connection is the one console error the page may log for it.
    const added = browser.errors.splice(errorsBefore);
    expect(added.filter((e) => !/ERR_CONNECTION_RESET/.test(e))).toEqual([]);

    const res = await fetch(`${t.baseUrl}/api/storage/buckets/${BUCKET}/objects/docs/big.bin`, { headers: admin() });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('browses folders, previews the image and copies a signed URL that works', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: BUCKET }).click();
    await page.getByRole('link', { name: 'docs/' }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/storage/${BUCKET}/docs`);
    await page.getByRole('cell', { name: 'notes.txt', exact: true }).waitFor();
    // The image's row shows a thumbnail the server scaled; the text files' rows show none.
    await page.locator('tbody img').first().waitFor();
    expect(await page.locator('tbody img').count()).toBe(1);

    await page.getByRole('button', { name: 'Preview pixel.png' }).click();
    const image = page.getByRole('img', { name: 'Preview of docs/pixel.png' });
    await image.waitFor();
    await page.waitForFunction(
      () => (document.querySelector('img[alt="Preview of docs/pixel.png"]') as HTMLImageElement | null)?.complete,
    );
    expect(
      await image.evaluate((img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight]),
    ).toEqual([6, 4]);
    await browser.screenshot('storage-preview');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.keyboard.press('Escape');
    await image.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Signed URL of notes.txt' }).click();
    const field = page.getByRole('textbox', { name: 'Signed URL' });
    await field.waitFor();
    const signedUrl = await field.inputValue();
    await browser.screenshot('storage-signed-url');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Copy signed URL' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(signedUrl);
    await page.keyboard.press('Escape');

    const signed = await fetch(signedUrl);
    expect(signed.status).toBe(200);
    expect(await signed.text()).toBe(NOTES);
    // The bucket is private: the same object without the signature is refused.
    const unsigned = await fetch(signedUrl.split('?')[0] as string);
    expect(unsigned.status).not.toBe(200);
  });

  it('deletes a file only after confirming', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Delete dropped.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete dropped.txt?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const exists = async () =>
      (
        await t.request({
          method: 'GET',
          url: `/api/storage/buckets/${BUCKET}/objects/docs/dropped.txt`,
          headers: admin(),
        })
      ).statusCode;
    expect(await exists()).toBe(200);

    await page.getByRole('button', { name: 'Delete dropped.txt' }).click();
    await dialog.getByRole('button', { name: 'Delete file' }).click();
    await page.getByRole('cell', { name: 'dropped.txt', exact: true }).waitFor({ state: 'detached' });
    expect(await exists()).toBe(404);
    await page.getByRole('cell', { name: 'notes.txt', exact: true }).waitFor();
  });
});

const BROKEN = `export default async function (req: Request) {
  const body = ;
  return Response.json({ hello: body.name });
}`;

const FIXED = `export default async function (req: Request) {
  const body = await req.json();
  return Response.json({ hello: body.name }, { headers: { 'x-greeted': body.name } });
}`;

describe('the Functions screen', () => {
  it('marks a syntax error at its line, stores nothing, then deploys the fix', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Functions' }).click();
    await page.getByRole('heading', { name: 'Functions' }).waitFor();
    await page.getByText('No functions yet').waitFor();
    await browser.screenshot('functions-empty');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('link', { name: 'New function' }).click();
    await page.getByRole('heading', { name: 'New function' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(FUNCTION);
    await writeCode(BROKEN);
    await page.getByRole('button', { name: 'Deploy' }).click();
    await page.getByRole('alert').filter({ hasText: 'Syntax error at line 2' }).waitFor();
    // The line the server reported is marked in the editor (lint range and gutter marker).
    const lines = page.locator('.cm-content .cm-line');
    await lines.nth(1).locator('.cm-lintRange-error').waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(1);
    await page.locator('.cm-gutter-lint .cm-lint-marker-error').waitFor();
    expect((await t.request({ method: 'GET', url: `/api/functions/${FUNCTION}`, headers: admin() })).statusCode).toBe(
      404,
    );
    await browser.screenshot('functions-syntax-error');
    expect(await browser.seriousViolations()).toEqual([]);

    await writeCode(FIXED);
    await page.getByRole('button', { name: 'Deploy' }).click();
    await page.getByRole('heading', { name: `Function ${FUNCTION}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/functions/${FUNCTION}`);
    const stored = await t.request({ method: 'GET', url: `/api/functions/${FUNCTION}`, headers: admin() });
    expect(stored.json).toMatchObject({ slug: FUNCTION, status: 'active', verifyJwt: true, code: FIXED });
  });

  it('invokes it with a JSON body and sees the call in the live logs', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const logs = page.getByRole('region', { name: 'Function logs' });
    await logs.getByText('live', { exact: true }).waitFor();

    await page.getByRole('textbox', { name: 'Body' }).fill('{"name":"Ada"}');
    await page.getByRole('button', { name: 'Send request' }).click();
    const response = page.getByRole('region', { name: 'Response' });
    await response.getByText('200', { exact: false }).first().waitFor();
    expect(await response.getByLabel('Response body').textContent()).toBe(JSON.stringify({ hello: 'Ada' }, null, 2));
    await response.getByRole('row', { name: /x-greeted\s+Ada/ }).waitFor();

    await logs.getByRole('cell', { name: `POST /functions/${FUNCTION} 200` }).waitFor();
    await browser.screenshot('functions-invoked');
    console.log(
      'DEBUG',
      await page.evaluate(() =>
        [...document.querySelectorAll('.ͼi')].map(
          (e) => `${e.textContent} ${getComputedStyle(e).color} ${getComputedStyle(e).backgroundColor} ${e.className}`,
        ),
      ),
    );
    expect(await browser.seriousViolations()).toEqual([]);
  });

  it('turns verify-JWT off and an anonymous call then succeeds', { timeout: 60_000 }, async () => {
    const { page } = browser;
    const anonymousCall = () =>
      fetch(`${t.baseUrl}/functions/${FUNCTION}`, { method: 'POST', body: '{"name":"anon"}' }).then((r) => r.status);
    expect(await anonymousCall()).toBe(401);

    const verify = page.getByRole('switch', { name: 'Verify JWT' });
    expect(await verify.isChecked()).toBe(true);
    await verify.click({ force: true });
    // Settled: the switch is enabled again and shows the stored setting.
    await page.waitForFunction(() => {
      const input = document.querySelector('input[role="switch"]') as HTMLInputElement | null;
      return input !== null && !input.checked && !input.disabled;
    });
    const stored = await t.request({ method: 'GET', url: `/api/functions/${FUNCTION}`, headers: admin() });
    expect(stored.json.verifyJwt).toBe(false);
    expect(await anonymousCall()).toBe(200);

    // The same from the page: a call without the admin's token.
    await page.getByRole('checkbox', { name: /Send the admin session/ }).uncheck();
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByRole('region', { name: 'Response' }).getByText('200 OK').waitFor();
    await browser.screenshot('function');
    expect(await browser.seriousViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    await browser.screenshot('function-dark');
    expect(await browser.seriousViolations()).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  });
});

describe('on a 390-px-wide phone', () => {
  it('shows the folder and the function without sideways scrolling', { timeout: 60_000 }, async () => {
    const phone = await openBrowser({ width: 390, height: 844 });
    try {
      const { page } = phone;
      await signIn(phone, `/storage/${BUCKET}/docs`);
      await page.getByRole('cell', { name: 'notes.txt', exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot('storage-phone');
      expect(await phone.seriousViolations()).toEqual([]);

      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await page.getByRole('link', { name: 'Functions' }).click();
      await page.getByRole('link', { name: FUNCTION }).click();
      await page.getByRole('heading', { name: `Function ${FUNCTION}` }).waitFor();
      await page.getByRole('region', { name: 'Function logs' }).getByText('live', { exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot('function-phone');
      expect(await phone.seriousViolations()).toEqual([]);
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

describe('afterwards', () => {
  it('deletes the function only after confirming', { timeout: 60_000 }, async () => {
    const { page } = browser;
    await page.getByRole('button', { name: `Delete function ${FUNCTION}` }).click();
    await page
      .getByRole('dialog', { name: `Delete function ${FUNCTION}?` })
      .getByRole('button', { name: 'Delete function' })
      .click();
    await page.getByText('No functions yet').waitFor();
    const gone = await t.request({ method: 'GET', url: `/api/functions/${FUNCTION}`, headers: admin() });
    expect(gone.statusCode).toBe(404);
  });

  it('logged no console errors but the refused deploy', () => {
    expect(browser.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
    expect(browser.errors.length).toBeLessThanOrEqual(1);
  });
});
