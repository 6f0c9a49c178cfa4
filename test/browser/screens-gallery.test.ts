// Every screen of the console in Chromium, in light and dark, twice: on a new project (each list's
// empty state says the next step with a snippet to copy) and after seeding data through the API
// (a table by migration with rows, users, a bucket with files, a function invoked, a secret, a
// realtime channel with a message, a schedule run, a backup, AI usage through a loopback provider,
// the processor's catalogue, a site deployment). On each: no loading spinner is left once the data
// is shown, axe-core finds no serious or critical violation, and a full-page screenshot is saved
// to test-results/screens/ (git-ignored) to look at. No console errors.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../harness/openai-peer.js';
import { type ProcessorPeer, startProcessorPeer } from '../harness/processor-peer.js';
import { type LiveDashboard, startLiveDashboard } from './live-dashboard.js';

const SHOTS = fileURLToPath(new URL('../../test-results/screens/', import.meta.url));
const PROCESSOR_KEY = 'sk_test_gallery000000000000001';
const TABLE = 'gallery_books';

let live: LiveDashboard;
let ai: OpenAiPeer;
let processor: ProcessorPeer;
let userId = '';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [ai, processor] = await Promise.all([startOpenAiPeer(), startProcessorPeer()]);
  live = await startLiveDashboard({
    OPENROUTER_BASE_URL: ai.baseUrl,
    OPENROUTER_MAX_RETRIES: '0',
    SCHEDULES_POLL_MS: '0',
    FUNCTIONS_RUNTIME_PORT: '0',
    ...processor.env,
  });
  await live.t.deps.runtime.start();
  // Charts drawn at once (they honour reduced motion), so the screenshots show their final bars.
  await live.browser.page.emulateMedia({ reducedMotion: 'reduce' });
  await live.signIn(live.browser, '/');
}, 90_000);

afterAll(async () => {
  await live?.close();
  await Promise.all([ai?.close(), processor?.close()]);
});

interface Screen {
  path: () => string;
  name: string;
  /** Resolves once the screen shows what it should (its data, or its empty state). */
  ready(page: Page): Promise<void>;
}

const text = (page: Page, value: string | RegExp) => page.getByText(value).first().waitFor();
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();

/** The list screens of a new project, each with its empty state and a snippet to copy. */
const EMPTY: Screen[] = [
  { path: () => '/tables', name: 'tables', ready: (p) => text(p, 'No tables yet') },
  { path: () => '/migrations', name: 'migrations', ready: (p) => text(p, 'No migrations applied yet') },
  { path: () => '/users', name: 'users', ready: (p) => text(p, 'No users yet') },
  { path: () => '/storage', name: 'storage', ready: (p) => text(p, 'No buckets yet') },
  { path: () => '/functions', name: 'functions', ready: (p) => text(p, 'No functions yet') },
  { path: () => '/secrets', name: 'secrets', ready: (p) => text(p, 'No secrets yet') },
  { path: () => '/realtime', name: 'realtime', ready: (p) => text(p, 'No channels yet') },
  { path: () => '/schedules', name: 'schedules', ready: (p) => text(p, 'No schedules yet') },
  { path: () => '/backups', name: 'backups', ready: (p) => text(p, 'No backups yet') },
  { path: () => '/ai', name: 'ai', ready: (p) => text(p, 'No usage yet') },
  { path: () => '/payments', name: 'payments', ready: (p) => text(p, 'No products') },
  { path: () => '/sites', name: 'sites', ready: (p) => text(p, 'No deployments yet') },
];

/** Every screen, with data. */
const FULL: Screen[] = [
  { path: () => '/', name: 'overview', ready: (p) => p.getByRole('figure', { name: 'Requests' }).waitFor() },
  { path: () => '/tables', name: 'tables', ready: (p) => p.getByRole('link', { name: TABLE }).waitFor() },
  { path: () => `/tables/${TABLE}`, name: 'table-grid', ready: (p) => text(p, '12 rows') },
  { path: () => '/sql', name: 'sql', ready: (p) => heading(p, 'SQL editor') },
  { path: () => '/migrations', name: 'migrations', ready: (p) => text(p, /gallery-books/) },
  { path: () => '/users', name: 'users', ready: (p) => text(p, 'reader-1@gallery.test') },
  { path: () => `/users/${userId}`, name: 'user-detail', ready: (p) => text(p, 'reader-1@gallery.test') },
  { path: () => '/auth-settings', name: 'auth-settings', ready: (p) => heading(p, 'Auth settings') },
  { path: () => '/storage', name: 'storage', ready: (p) => p.getByRole('link', { name: 'covers' }).waitFor() },
  { path: () => '/storage/covers', name: 'bucket', ready: (p) => text(p, 'notes.txt') },
  { path: () => '/functions', name: 'functions', ready: (p) => text(p, 'gallery-hello') },
  {
    path: () => '/functions/gallery-hello',
    name: 'function',
    ready: (p) => p.getByRole('table', { name: 'Log entries of gallery-hello' }).waitFor(),
  },
  { path: () => '/secrets', name: 'secrets', ready: (p) => text(p, 'GALLERY_TOKEN') },
  { path: () => '/realtime', name: 'realtime', ready: (p) => text(p, 'chat:%') },
  { path: () => '/schedules', name: 'schedules', ready: (p) => text(p, 'nightly-health') },
  { path: () => '/backups', name: 'backups', ready: (p) => text(p, 'gallery-backup') },
  { path: () => '/logs', name: 'logs', ready: (p) => p.getByRole('table', { name: 'Log lines' }).waitFor() },
  {
    path: () => '/payments',
    name: 'payments',
    ready: (p) => p.getByRole('table', { name: 'Products' }).getByText('Gallery plan').waitFor(),
  },
  {
    path: () => '/ai',
    name: 'ai',
    ready: async (p) => {
      await p
        .getByRole('table', { name: 'Usage per caller', exact: true })
        .getByRole('link', { name: 'reader-1@gallery.test' })
        .waitFor();
      // Two users called once each: 9 tokens in and 3 out a call (the peer's usage).
      await p
        .getByRole('table', { name: 'Usage per model' })
        .getByRole('row', { name: 'zeta/free-model 2 18 6 2' })
        .waitFor();
    },
  },
  { path: () => '/sites', name: 'sites', ready: (p) => p.getByRole('table', { name: 'Deployments' }).waitFor() },
];

/** Nothing on the page still says it is loading (a spinner left behind once the data is shown). */
async function noSpinnerLeft(page: Page, name: string): Promise<void> {
  const loading = page.locator('[role="status"]:has-text("Loading"), .mantine-Loader-root:visible');
  try {
    await expect.poll(() => loading.count(), { timeout: 10_000 }).toBe(0);
  } catch {
    const left = await loading.allTextContents();
    throw new Error(`${name}: a loading state is still shown after the data: ${JSON.stringify(left)}`);
  }
}

async function setTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  const current = await page.locator('html').getAttribute('data-mantine-color-scheme');
  if (current === scheme) return;
  await page.getByRole('button', { name: `Switch to ${scheme} theme` }).click();
  await expect.poll(() => page.locator('html').getAttribute('data-mantine-color-scheme')).toBe(scheme);
}

/** Moves to a screen as the console's own links do (History API), without loading the app again. */
async function follow(page: Page, path: string): Promise<void> {
  await page.evaluate((href) => {
    window.history.pushState(null, '', href);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, `/dashboard${path}`);
}

/**
 * Each screen in both themes: ready, no spinner left, screenshot, axe clean. The tour loads the app
 * once and moves between screens in it, as an admin does (loading it again for each screen was
 * most of the file's time; other files load screens directly).
 */
async function tour(screens: Screen[], prefix: string): Promise<void> {
  const { page } = live.browser;
  let loaded = false;
  for (const scheme of ['light', 'dark'] as const) {
    for (const screen of screens) {
      if (loaded) await follow(page, screen.path());
      else await live.visit(screen.path());
      loaded = true;
      await setTheme(page, scheme);
      await screen.ready(page);
      await noSpinnerLeft(page, screen.name);
      await page.screenshot({ path: `${SHOTS}${prefix}-${screen.name}-${scheme}.png`, fullPage: true });
      expect(await live.browser.seriousViolations(), `${screen.name} (${scheme})`).toEqual([]);
    }
  }
}

const sha1 = (data: string) => createHash('sha1').update(data).digest('hex');

async function ok(res: Promise<{ statusCode: number; body: string; json: any }>, status = 200) {
  const done = await res;
  expect(done.statusCode, done.body).toBe(status);
  return done.json;
}

/** A project with something on every screen, made through the API as an app and its admin would. */
async function seed(): Promise<void> {
  const { api, t } = live;
  const sql = `create table gallery_authors (id serial primary key, name text not null);
create table ${TABLE} (
  id serial primary key,
  title text not null,
  author_id int references gallery_authors(id),
  published date,
  meta jsonb
);
insert into gallery_authors (name) values ('Ursula'), ('Italo'), ('Jorge');
insert into ${TABLE} (title, author_id, published, meta)
  select 'Book ' || g, 1 + g % 3, date '2020-01-01' + g * 40, jsonb_build_object('shelf', g % 4)
  from generate_series(1, 12) g;`;
  await ok(api('POST', '/api/database/migrations', { version: '20261129000000', name: 'gallery-books', sql }), 201);
  await ok(
    api('POST', '/api/database/snippets', {
      name: 'Books per author',
      sql: 'select author_id, count(*) from gallery_books group by 1',
    }),
    201,
  );

  const users = [];
  for (let i = 1; i <= 3; i++) users.push(await t.signUp(`reader-${i}@gallery.test`));
  userId = users[0]!.user.id;

  await ok(api('POST', '/api/storage/buckets', { bucketName: 'covers', isPublic: false }), 201);
  for (const [key, body] of [
    ['notes.txt', 'a note about the covers'],
    ['2026/spring.txt', 'spring catalogue'],
  ] as const) {
    await ok(
      t.request({
        method: 'PUT',
        url: `/api/storage/buckets/covers/objects/${key}`,
        headers: { 'x-api-key': t.apiKey, 'content-type': 'text/plain' },
        payload: body,
      }),
    );
  }

  await ok(
    api('POST', '/api/functions', {
      name: 'Gallery hello',
      slug: 'gallery-hello',
      code: 'export default async function () { console.log("hello from the gallery"); return Response.json({ ok: true }); }',
    }),
    201,
  );
  await ok(t.request({ method: 'GET', url: '/functions/gallery-hello', headers: { 'x-api-key': t.apiKey } }));
  await ok(api('POST', '/api/secrets', { key: 'GALLERY_TOKEN', value: 'not-shown' }), 201);

  await ok(api('POST', '/api/realtime/channels', { pattern: 'chat:%', description: 'Chat rooms' }), 201);
  await ok(
    api('POST', '/api/database/advance/rawsql', {
      query: `select realtime.publish('chat:lobby', 'message', '{"text": "hi"}')`,
    }),
  );

  const schedule = await ok(
    api('POST', '/api/schedules', {
      name: 'nightly-health',
      cronSchedule: '0 3 * * *',
      functionUrl: `${live.baseUrl}/api/health`,
      httpMethod: 'GET',
    }),
    201,
  );
  await ok(api('POST', `/api/schedules/${schedule.id}/run`));

  const backup = await ok(api('POST', '/api/database/backups', { name: 'gallery-backup' }), 201);
  await expect
    .poll(
      async () => (await api('GET', `/api/database/backups`)).json.backups.find((b: any) => b.id === backup.id)?.status,
      {
        timeout: 30_000,
      },
    )
    .toBe('completed');

  await ok(api('PUT', '/api/ai/config', { apiKey: ai.apiKey }));
  await ok(api('PUT', '/api/ai/settings', { allowedModels: ['zeta/free-model'], userDailyTokenBudget: 100_000 }));
  for (const user of users.slice(0, 2)) {
    await ok(
      t.request({
        method: 'POST',
        url: '/api/ai/chat/completion',
        headers: { authorization: `Bearer ${user.accessToken}` },
        payload: { model: 'zeta/free-model', messages: [{ role: 'user', content: 'hello there' }] },
      }),
    );
  }

  await ok(api('PUT', '/api/payments/test/config', { secretKey: PROCESSOR_KEY }));
  processor.put(PROCESSOR_KEY, { id: 'prod_gallery', object: 'product', name: 'Gallery plan', active: true });
  processor.put(PROCESSOR_KEY, {
    id: 'price_gallery',
    object: 'price',
    product: 'prod_gallery',
    currency: 'eur',
    unit_amount: 900,
    active: true,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
  await ok(api('POST', '/api/payments/test/sync'));

  const html = '<!doctype html><title>Gallery</title><h1>Gallery</h1>';
  const deployment = await ok(
    api('POST', '/api/deployments/direct', { files: [{ path: 'index.html', sha: sha1(html), size: html.length }] }),
    201,
  );
  for (const f of deployment.files) {
    await t.request({
      method: 'PUT',
      url: `/api/deployments/${deployment.id}/files/${f.fileId}/content`,
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/octet-stream' },
      payload: Buffer.from(html),
    });
  }
  await ok(api('POST', `/api/deployments/${deployment.id}/start`, {}));
  await t.app.logs!.flush();
}

describe('every screen of the console, light and dark', () => {
  it('shows each list’s empty state with the next step to copy on a new project', { timeout: 240_000 }, async () => {
    const { page } = live.browser;
    await tour(EMPTY, 'empty');
    // The AI screen says it is not configured, and which setting to set.
    await live.visit('/ai');
    await text(page, 'AI is not configured');
    await text(page, 'OPENROUTER_API_KEY=sk-or-…');
    // Every empty list offers a snippet with a copy button.
    for (const screen of EMPTY) {
      await live.visit(screen.path());
      await screen.ready(page);
      await page
        .getByRole('button', { name: /^Copy the (CLI|SDK|curl|SQL) snippet$/ })
        .first()
        .waitFor();
    }
    // Opening the AI screen without a key left no error behind (it used to top the overview).
    await live.t.app.logs!.flush();
    const errors = (await live.api('GET', '/api/logs/search?source=errors')).json;
    expect(errors).toEqual([]);
  });

  it('shows every screen with data', { timeout: 360_000 }, async () => {
    await seed();
    await tour(FULL, 'data');
  });

  it('logged no console errors', () => {
    expect(live.browser.errors).toEqual([]);
  });
});
