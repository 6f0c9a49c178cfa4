// supabase-js 2.119.1 (its UMD build) in Chromium, on a page of another origin than Plinth's: the
// calls a browser app makes go through real CORS preflights, and what supabase-js reads from the
// answers is visible to it — a count from Content-Range, auth error codes (X-Supabase-Api-Version),
// the admin list's total (X-Total-Count), an upload with x-upsert, and the signed-in user's rows.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { applyFixture } from '../integration/supabase/rest-harness.js';
import { type BrowserSession, openBrowser } from './browser.js';

let t: TestApp;
let plinth: string;
let page: Server;
let pageOrigin: string;
let browser: BrowserSession;

beforeAll(async () => {
  t = await startTestApp();
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  plinth = `http://127.0.0.1:${port}`;
  await applyFixture(t, '20240101000100_todos.sql');
  await t.signUp(); // a second user, so the admin list has a next page
  const bucket = await t.request({
    method: 'POST',
    url: '/storage/v1/bucket',
    headers: { apikey: t.apiKey, authorization: `Bearer ${t.apiKey}` },
    payload: { id: 'browser', name: 'browser', public: false },
  });
  expect(bucket.statusCode, bucket.body).toBe(200);

  // The app's page, on an origin of its own (localhost, not 127.0.0.1): supabase-js from its UMD build.
  const umd = await readFile(
    createRequire(import.meta.url)
      .resolve('@supabase/supabase-js')
      .replace(/dist\/.*$/, 'dist/umd/supabase.js'),
  );
  page = createServer((req, res) => {
    if (req.url === '/supabase.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(umd);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script src="/supabase.js"></script>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://localhost:${(page.address() as AddressInfo).port}`;

  browser = await openBrowser();
  await browser.page.goto(pageOrigin);
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => page?.close(resolve));
  await t?.close();
});

it('a browser app on another origin signs up, writes and counts its rows, uploads, and reads auth error codes', async () => {
  const result = await browser.page.evaluate(
    async ({ url, anonKey, apiKey }) => {
      const { createClient } = (globalThis as any).supabase;
      const options = { auth: { persistSession: false, autoRefreshToken: false } };
      const sb = createClient(url, anonKey, options);
      const email = `browser-${Math.random().toString(16).slice(2)}@example.com`;
      const signUp = await sb.auth.signUp({ email, password: 'browser-pass-1' });
      const insert = await sb.from('todos').insert({ task: 'from a browser' }).select();
      const counted = await sb.from('todos').select('*', { count: 'exact', head: true });
      const wrong = await createClient(url, anonKey, options).auth.signInWithPassword({
        email,
        password: 'not-the-password',
      });
      const userId = signUp.data.user?.id;
      const upload = await sb.storage
        .from('browser')
        .upload(`${userId}/hello.txt`, new Blob(['hello'], { type: 'text/plain' }), { upsert: true });
      const list = await sb.storage.from('browser').list(userId);
      const admin = createClient(url, apiKey, options);
      const users = await admin.auth.admin.listUsers({ page: 1, perPage: 1 });
      return {
        signUp: { error: signUp.error?.message ?? null, hasSession: Boolean(signUp.data.session) },
        insert: { error: insert.error?.message ?? null, rows: insert.data?.length ?? 0 },
        counted: { error: counted.error?.message ?? null, count: counted.count },
        wrong: { status: wrong.error?.status, code: wrong.error?.code },
        upload: { error: upload.error?.message ?? null, path: upload.data?.path },
        list: { error: list.error?.message ?? null, names: (list.data ?? []).map((o: { name: string }) => o.name) },
        users: {
          error: users.error?.message ?? null,
          total: (users.data as { total?: number }).total,
          nextPage: (users.data as { nextPage?: number | null }).nextPage,
        },
      };
    },
    { url: plinth, anonKey: t.anonKey, apiKey: t.apiKey },
  );

  expect(result.signUp).toEqual({ error: null, hasSession: true });
  expect(result.insert).toEqual({ error: null, rows: 1 });
  // Read from Content-Range: null if the page could not see the header.
  expect(result.counted).toEqual({ error: null, count: 1 });
  // auth-js reads `code` only when it can see X-Supabase-Api-Version.
  expect(result.wrong).toEqual({ status: 400, code: 'invalid_credentials' });
  expect(result.upload).toMatchObject({ error: null, path: expect.stringMatching(/\/hello\.txt$/) });
  expect(result.list).toEqual({ error: null, names: ['hello.txt'] });
  // total from X-Total-Count, nextPage from Link.
  expect(result.users).toMatchObject({ error: null, total: 2, nextPage: 2 });

  // Every call above carried apikey (and JSON, x-upsert…), so each went through a preflight first:
  // Chromium sends the call only after the preflight allowed it.
  expect(browser.errors.filter((e) => /CORS|Access-Control/i.test(e))).toEqual([]);
});
