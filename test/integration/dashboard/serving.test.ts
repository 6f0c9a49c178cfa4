// The web console as the server delivers it: / redirects to /dashboard/, client routes get the
// SPA entry (never cached), hashed assets are cached for a year, paths cannot climb out of the
// build folder, and a checkout that was never built answers 503 with the fix.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../../src/http/error-handler.js';
import { dashboardPlugin } from '../../../src/modules/dashboard/index.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const built = new URL('../../../dist/dashboard/assets/', import.meta.url);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the dashboard at /dashboard', () => {
  it('/ redirects to /dashboard/', async () => {
    const res = await t.request({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/dashboard/');
  });

  it('answers the SPA entry, uncached, for /dashboard and every client route', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/tables/todos', '/dashboard/..%2F..%2Fpackage.json']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.body, url).toContain('<div id="root">');
    }
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const script = readdirSync(built).find((name) => name.endsWith('.js'));
    expect(script).toBeDefined();
    const res = await t.request({ method: 'GET', url: `/dashboard/assets/${script}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});

describe('the dashboard as a page no one else can use', () => {
  it('answers with a strict CSP (no inline script), no framing, no sniffing, no referrer', async () => {
    const script = readdirSync(built).find((name) => name.endsWith('.js'));
    for (const url of ['/dashboard/', '/dashboard/storage', `/dashboard/assets/${script}`]) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("script-src 'self';");
      expect(csp, url).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });

  it('the built entry has no inline script (a strict CSP would block it)', async () => {
    const res = await t.request({ method: 'GET', url: '/dashboard/' });
    const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/dashboard\/assets\//);
      expect(body!.trim()).toBe('');
    }
    expect(res.body).not.toMatch(/\son[a-z]+=/i);
  });
});

describe('a checkout whose dashboard was not built', () => {
  it('answers 503 with what to run', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'plinth-no-dashboard-'));
    const app = Fastify();
    registerErrorHandling(app);
    await app.register(dashboardPlugin({ root: empty }));
    try {
      for (const url of ['/dashboard', '/dashboard/tables']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(503);
        expect(res.json()).toMatchObject({ error: 'SERVICE_UNAVAILABLE', statusCode: 503 });
        expect(res.json().nextActions).toContain('npm run build');
      }
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
