// Sites, the deployments API in the reference's shapes and the serving of the site on its own
// origin: direct uploads by SHA-1 (held files not asked again, bytes checked), start, list/get,
// the legacy zip (signed upload, bad names, links and zip bombs refused), rollback in one call,
// retention, the Host header deciding what is served (never the API on a site host, never the
// site on the API host), caching, ETags, ranges, precompression, SPA fallback, custom domains,
// slugs that would shadow the API, CORS for the site's origin, and builds switched off.
import { createHash, randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeZip } from '../../harness/zip-writer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const API_HOST = 'api.plinth.test';
const SITE = 'app.localhost';
let key: Record<string, string>;

const sha1 = (data: string | Buffer) => createHash('sha1').update(data).digest('hex');
const file = (path: string, data: string | Buffer) => ({
  path,
  data: Buffer.from(data),
  sha: sha1(data),
  size: Buffer.byteLength(data),
});
type SiteFile = ReturnType<typeof file>;

const api = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: { ...key, host: API_HOST }, payload: payload as object });

const put = (id: string, fileId: string, body: Buffer, contentType = 'application/octet-stream') =>
  t.request({
    method: 'PUT',
    url: `/api/deployments/${id}/files/${fileId}/content`,
    headers: { ...key, host: API_HOST, 'content-type': contentType },
    payload: body,
  });

const site = (url: string, headers: Record<string, string> = {}, host = SITE) =>
  t.request({ method: 'GET', url, headers: { host, ...headers } });

/** Creates, uploads what is asked and starts a direct deployment; answers the started deployment. */
async function deploy(files: SiteFile[], start: object = {}) {
  // Deployments made in one test are a second apart, as they would be.
  t.clock.advance(1000);
  const created = await api('POST', '/api/deployments/direct', {
    files: files.map(({ path, sha, size }) => ({ path, sha, size })),
  });
  expect(created.statusCode, created.body).toBe(201);
  for (const asked of created.json.files) {
    const local = files.find((f) => f.path === asked.path)!;
    const res = await put(created.json.id, asked.fileId, local.data);
    expect(res.statusCode, res.body).toBe(200);
  }
  const started = await api('POST', `/api/deployments/${created.json.id}/start`, start);
  return { created: created.json, started };
}

function multipart(fields: [string, string][], zip?: Buffer) {
  const boundary = `----plinth${randomUUID()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (zip) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="deployment.zip"\r\ncontent-type: application/zip\r\n\r\n`,
      ),
      zip,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: Buffer.concat(parts) };
}

const INDEX = `<!doctype html><title>v1</title><script src="/assets/app.3f9a1c2b7d.js"></script>${'<p>hello</p>'.repeat(200)}`;
const APP_JS = `console.log(${JSON.stringify('x'.repeat(4000))});`;
const v1 = [file('index.html', INDEX), file('assets/app.3f9a1c2b7d.js', APP_JS), file('robots.txt', 'User-agent: *\n')];

beforeAll(async () => {
  t = await startTestApp({
    env: {
      API_BASE_URL: `http://${API_HOST}`,
      CORS_ORIGINS: 'https://console.example.com',
      SITES_BUILDS: 'false',
      SITES_MAX_FILE_BYTES: String(1024 * 1024),
      SITES_MAX_TOTAL_BYTES: String(4 * 1024 * 1024),
      SITES_MAX_FILES: '50',
    },
  });
  key = { 'x-api-key': t.apiKey };
});
afterAll(() => t?.close());

describe('direct deployments', () => {
  let first: { id: string };

  it('answers every file to upload with its fileId, checks each upload, and publishes on start', async () => {
    const created = await api('POST', '/api/deployments/direct', {
      files: v1.map(({ path, sha, size }) => ({ path, sha, size })),
    });
    expect(created.statusCode).toBe(201);
    expect(created.json.status).toBe('WAITING');
    expect(created.json.files.map((f: { path: string }) => f.path).sort()).toEqual(v1.map((f) => f.path).sort());
    for (const f of created.json.files) expect(f).toMatchObject({ uploadedAt: null, fileId: expect.any(String) });
    const id = created.json.id as string;
    const index = created.json.files.find((f: { path: string }) => f.path === 'index.html');

    // Not octet-stream: 415. Other bytes than the manifest's: 400, nothing marked uploaded.
    expect((await put(id, index.fileId, Buffer.from(INDEX), 'text/html')).statusCode).toBe(415);
    const wrong = await put(id, index.fileId, Buffer.from(INDEX.replace('v1', 'v9')));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'DEPLOYMENT_INVALID_FILE', nextActions: expect.any(String) });
    // Starting before every file is there names what is missing.
    const early = await api('POST', `/api/deployments/${id}/start`, {});
    expect(early.statusCode).toBe(400);
    expect(early.json.details.missing).toContain('index.html');
    // A fileId of another deployment, or none at all.
    expect((await put(id, randomUUID(), Buffer.from('x'))).statusCode).toBe(404);

    for (const f of created.json.files) {
      const local = v1.find((l) => l.path === f.path)!;
      const res = await put(id, f.fileId, local.data);
      expect(res.statusCode).toBe(200);
      expect(res.json).toMatchObject({
        path: f.path,
        sha: local.sha,
        size: local.size,
        uploadedAt: expect.any(String),
      });
    }
    const started = await api('POST', `/api/deployments/${id}/start`, { meta: { source: 'test' } });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json).toMatchObject({
      id,
      status: 'READY',
      provider: 'plinth',
      live: true,
      url: 'http://app.localhost:7130',
    });
    // Once READY it never changes: no more uploads, no second start.
    expect((await put(id, index.fileId, Buffer.from(INDEX))).statusCode).toBe(409);
    expect((await api('POST', `/api/deployments/${id}/start`, {})).statusCode).toBe(409);
    first = { id };
  });

  it('asks only for the files it does not hold already', async () => {
    t.clock.advance(1000);
    const v2 = [file('index.html', INDEX.replace('v1', 'v2')), v1[1]!, v1[2]!];
    const created = await api('POST', '/api/deployments/direct', {
      files: v2.map(({ path, sha, size }) => ({ path, sha, size })),
    });
    expect(created.json.files.map((f: { path: string }) => f.path)).toEqual(['index.html']);
    await put(created.json.id, created.json.files[0].fileId, v2[0]!.data);
    const started = await api('POST', `/api/deployments/${created.json.id}/start`, {});
    expect(started.json).toMatchObject({ status: 'READY', live: true });
    expect((await site('/')).body).toContain('<title>v2</title>');

    // Rollback to the first in one call: the next request is served from it.
    const rolled = await api('POST', `/api/deployments/${first.id}/promote`);
    expect(rolled.json).toMatchObject({ id: first.id, live: true });
    expect((await site('/')).body).toContain('<title>v1</title>');
    const meta = await api('GET', '/api/deployments/metadata');
    expect(meta.json).toEqual({
      currentDeploymentId: first.id,
      defaultDomainUrl: 'http://app.localhost:7130',
      customDomainUrl: null,
    });
    expect((await api('POST', `/api/deployments/${created.json.id}/promote`)).json.live).toBe(true);
  });

  it('lists newest first with Content-Range, and gets one', async () => {
    const all = await api('GET', '/api/deployments');
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-range']).toBe(`0-${all.json.length - 1}/${all.json.length}`);
    const page = await api('GET', '/api/deployments?limit=1&offset=1');
    expect(page.statusCode).toBe(206);
    expect(page.json[0].id).toBe(first.id);
    expect((await api('GET', `/api/deployments/${first.id}`)).json).toMatchObject({ id: first.id, status: 'READY' });
    expect((await api('GET', `/api/deployments/${randomUUID()}`)).json.error).toBe('DEPLOYMENT_NOT_FOUND');
  });

  it.each([['../etc/passwd'], ['a/../../b'], ['/abs.html'], ['a\\b.html'], ['a//b'], ['./x'], ['nul\u0000.html']])(
    'refuses the manifest path %j',
    async (bad) => {
      const res = await api('POST', '/api/deployments/direct', { files: [{ path: bad, sha: sha1('x'), size: 1 }] });
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toBe('VALIDATION_ERROR');
    },
  );

  it('refuses duplicate paths, bad SHA-1s, and manifests past the limits before writing anything', async () => {
    const before = (await api('GET', '/api/deployments')).json.length;
    const dup = { path: 'a.html', sha: sha1('a'), size: 1 };
    expect((await api('POST', '/api/deployments/direct', { files: [dup, dup] })).statusCode).toBe(400);
    expect((await api('POST', '/api/deployments/direct', { files: [{ ...dup, sha: 'zz' }] })).statusCode).toBe(400);
    const big = await api('POST', '/api/deployments/direct', { files: [{ ...dup, size: 2 * 1024 * 1024 }] });
    expect(big.statusCode).toBe(413);
    const many = Array.from({ length: 51 }, (_, i) => ({ path: `f${i}.txt`, sha: sha1(String(i)), size: 1 }));
    expect((await api('POST', '/api/deployments/direct', { files: many })).statusCode).toBe(413);
    expect((await api('GET', '/api/deployments')).json.length).toBe(before);
  });

  it('refuses a build while builds are switched off, leaving the deployment startable', async () => {
    const created = await api('POST', '/api/deployments/direct', {
      files: [{ path: 'index.html', sha: v1[0]!.sha, size: v1[0]!.size }],
    });
    expect(created.json.files).toEqual([]);
    const res = await api('POST', `/api/deployments/${created.json.id}/start`, {
      projectSettings: { buildCommand: 'npm run build' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.message).toContain('SITES_BUILDS');
    expect((await api('GET', `/api/deployments/${created.json.id}`)).json.status).toBe('WAITING');
  });

  it('lets admin SQL read deployments.runs and deployments.files, as the agent tools advise, and nothing write them', async () => {
    const read = await api('POST', '/api/database/advance/rawsql', {
      query:
        "select count(*)::int as n from deployments.runs r join deployments.files f on f.deployment_id = r.id where r.status = 'READY'",
    });
    expect(read.statusCode, read.body).toBe(200);
    expect(JSON.stringify(read.json)).toMatch(/"n":\s*[1-9]/);
    const write = await api('POST', '/api/database/advance/rawsql', {
      query: "update deployments.runs set status = 'READY'",
    });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    expect(write.statusCode).toBeLessThan(500);
  });

  it('needs the admin: a user token or the anon key cannot deploy', async () => {
    const user = await t.signUp();
    const asUser = await t.request({
      method: 'POST',
      url: '/api/deployments/direct',
      headers: { authorization: `Bearer ${user.accessToken}`, host: API_HOST },
      payload: { files: [{ path: 'a', sha: sha1('a'), size: 1 }] },
    });
    expect(asUser.statusCode).toBe(403);
    const anon = await t.request({
      method: 'GET',
      url: '/api/deployments',
      headers: { authorization: `Bearer ${t.anonKey}`, host: API_HOST },
    });
    expect(anon.statusCode).toBe(403);
  });
});

describe('serving the site by Host', () => {
  it('serves index.html revalidated, hashed assets for a year, with security headers and ETags', async () => {
    const index = await site('/');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(index.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    // No API header rides on a site answer: no CORS grant, no cookie.
    expect(index.headers['access-control-allow-origin']).toBeUndefined();
    expect(index.headers['set-cookie']).toBeUndefined();
    const js = await site('/assets/app.3f9a1c2b7d.js');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers.etag).toBe(`"${v1[1]!.sha}"`);
    expect(js.body).toBe(APP_JS);
    const again = await site('/assets/app.3f9a1c2b7d.js', { 'if-none-match': js.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await site('/robots.txt')).headers['cache-control']).toBe('no-cache');
  });

  it('sends the Brotli or gzip variant made at deploy time, and byte ranges of the bytes as stored', async () => {
    const br = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { host: SITE, 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers.etag).toMatch(/-br"$/);
    expect(brotliDecompressSync(br.rawPayload).toString()).toContain('<title>v2</title>');
    expect(br.rawPayload.length).toBeLessThan(Buffer.byteLength(INDEX));
    const gz = await t.app.inject({ method: 'GET', url: '/', headers: { host: SITE, 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toContain('<title>v2</title>');
    // A tiny file gets no variant.
    expect((await site('/robots.txt', { 'accept-encoding': 'br' })).headers['content-encoding']).toBeUndefined();

    const part = await site('/assets/app.3f9a1c2b7d.js', { range: 'bytes=0-10', 'accept-encoding': 'br' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-10/${APP_JS.length}`);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(part.body).toBe(APP_JS.slice(0, 11));
    const tail = await site('/assets/app.3f9a1c2b7d.js', { range: 'bytes=-5' });
    expect(tail.body).toBe(APP_JS.slice(-5));
    const beyond = await site('/assets/app.3f9a1c2b7d.js', { range: `bytes=${APP_JS.length}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${APP_JS.length}`);
    const head = await t.request({ method: 'HEAD', url: '/assets/app.3f9a1c2b7d.js', headers: { host: SITE } });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(APP_JS.length));
  });

  it('never serves the API or the dashboard on the site host, nor the site on the API host', async () => {
    const health = await site('/api/health');
    expect(health.statusCode).toBe(404);
    expect(health.headers['content-type']).toContain('text/plain');
    expect((await site('/dashboard')).statusCode).toBe(404);
    // The API key is of no use on the site host: the answer is the site's, not the API's.
    const listed = await t.request({ method: 'GET', url: '/api/deployments', headers: { host: SITE, ...key } });
    expect(listed.statusCode).toBe(404);
    expect(listed.body).not.toContain('READY');
    const post = await t.request({
      method: 'POST',
      url: '/api/deployments/direct',
      headers: { host: SITE, ...key },
      payload: {},
    });
    expect(post.statusCode).toBe(405);
    // On the API's host and on hosts that are not the site's, / is never the site's index.
    for (const host of [
      API_HOST,
      'localhost',
      '127.0.0.1',
      'other.localhost',
      'app.localhost.evil.test',
      'xapp.localhost',
    ]) {
      const res = await t.request({ method: 'GET', url: '/index.html', headers: { host } });
      expect(res.body, host).not.toContain('<title>v');
    }
    // The port does not matter to the host match; case does not either.
    expect((await site('/', {}, 'APP.localhost:9999')).body).toContain('<title>v2</title>');
  });

  it('looks paths up in the manifest only: traversal finds nothing', async () => {
    for (const url of [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2fpackage.json',
      '/%00',
      '/%5c..%5cpackage.json',
    ]) {
      const res = await site(url);
      expect(res.statusCode, url).toBe(404);
    }
    // A URL that does not decode is refused before anything is looked up.
    expect((await site('/%E0%A4%A')).statusCode).toBe(400);
  });

  it('falls back to index.html for app routes only when the SPA fallback is on', async () => {
    expect((await site('/todos/42')).statusCode).toBe(404);
    const on = await api('PATCH', '/api/deployments/site', { spaFallback: true });
    expect(on.json).toMatchObject({ spaFallback: true, slug: 'app' });
    const route = await site('/todos/42', { accept: 'text/html' });
    expect(route.statusCode).toBe(200);
    expect(route.body).toContain('<title>v2</title>');
    // A missing asset stays a 404 (a script must not get HTML).
    expect((await site('/assets/missing.js')).statusCode).toBe(404);
    await api('PATCH', '/api/deployments/site', { spaFallback: false });
  });

  it('gives the site origin CORS with credentials to the API, and no other unlisted origin', async () => {
    const fromSite = await t.request({
      method: 'GET',
      url: '/api/health',
      headers: { host: API_HOST, origin: 'http://app.localhost:7130' },
    });
    expect(fromSite.headers['access-control-allow-origin']).toBe('http://app.localhost:7130');
    expect(fromSite.headers['access-control-allow-credentials']).toBe('true');
    const stranger = await t.request({
      method: 'GET',
      url: '/api/health',
      headers: { host: API_HOST, origin: 'http://evil.localhost:7130' },
    });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves custom domains by Host, and refuses names that would take the API host', async () => {
    const added = await api('POST', '/api/deployments/domains', { domain: 'WWW.Example.test' });
    expect(added.statusCode).toBe(201);
    expect(added.json).toMatchObject({ domain: 'www.example.test', apexDomain: 'example.test' });
    expect((await site('/', {}, 'www.example.test')).body).toContain('<title>v2</title>');
    expect((await api('POST', '/api/deployments/domains', { domain: 'www.example.test' })).statusCode).toBe(409);
    expect((await api('POST', '/api/deployments/domains', { domain: API_HOST })).statusCode).toBe(400);
    expect((await api('POST', '/api/deployments/domains', { domain: 'evil.localhost' })).statusCode).toBe(400);
    expect((await api('GET', '/api/deployments/domains')).json.domains).toHaveLength(1);
    expect((await api('DELETE', '/api/deployments/domains/www.example.test')).statusCode).toBe(200);
    expect((await site('/', {}, 'www.example.test')).body).not.toContain('<title>v2</title>');
    expect((await api('DELETE', '/api/deployments/domains/www.example.test')).statusCode).toBe(404);
  });

  it('moves the site with its slug', async () => {
    const moved = await api('PUT', '/api/deployments/slug', { slug: 'shop' });
    expect(moved.json).toEqual({ success: true, slug: 'shop', domain: 'shop.localhost:7130' });
    expect((await site('/', {}, 'shop.localhost')).body).toContain('<title>v2</title>');
    expect((await site('/')).body).not.toContain('<title>v2</title>');
    expect((await api('PUT', '/api/deployments/slug', { slug: 'Bad_Slug' })).statusCode).toBe(400);
    expect((await api('PUT', '/api/deployments/slug', { slug: null })).json.slug).toBe('app');
  });
});

describe('the legacy zip flow', () => {
  async function upload(zip: Buffer, tokenOverride?: string) {
    const created = await api('POST', '/api/deployments');
    expect(created.statusCode).toBe(201);
    const { id, uploadUrl, uploadFields } = created.json;
    expect(uploadUrl).toBe(`http://${API_HOST}/api/deployments/${id}/source`);
    const form = multipart(Object.entries(tokenOverride === undefined ? uploadFields : { token: tokenOverride }), zip);
    const res = await t.request({
      method: 'POST',
      url: new URL(uploadUrl).pathname,
      headers: { ...form.headers, host: API_HOST },
      payload: form.payload,
    });
    return { id, res };
  }

  it('takes the zip at the signed upload URL (no API key) and publishes it on start', async () => {
    const zip = makeZip([
      { name: 'index.html', data: '<!doctype html><title>zip</title>' },
      { name: 'css/site.css', data: 'body{}' },
      { name: 'css/', data: '' },
    ]);
    const { id, res } = await upload(zip);
    expect(res.statusCode, res.body).toBe(204);
    const started = await api('POST', `/api/deployments/${id}/start`, {});
    expect(started.json).toMatchObject({ status: 'READY', live: true });
    expect((await site('/')).body).toContain('<title>zip</title>');
    expect((await site('/css/site.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('refuses an upload without a valid token, and a start with no zip', async () => {
    const zip = makeZip([{ name: 'index.html', data: 'x' }]);
    const { id, res } = await upload(zip, 'garbage');
    expect(res.statusCode).toBe(401);
    const other = await api('POST', '/api/deployments');
    const stolen = await upload(zip, other.json.uploadFields.token);
    expect(stolen.res.statusCode).toBe(401);
    expect((await api('POST', `/api/deployments/${id}/start`, {})).statusCode).toBe(400);
  });

  it.each([
    ['a parent-directory name', [{ name: '../escape.html', data: 'x' }]],
    ['an absolute name', [{ name: '/etc/cron.d/x', data: 'x' }]],
    ['a symbolic link', [{ name: 'link', data: '/etc/passwd', symlink: true }]],
    ['a bomb that says what it is', [{ name: 'bomb.txt', data: Buffer.alloc(3 * 1024 * 1024) }]],
    ['a bomb that lies about its size', [{ name: 'bomb.txt', data: Buffer.alloc(3 * 1024 * 1024), declaredSize: 10 }]],
    [
      'more bytes in all than allowed',
      Array.from({ length: 5 }, (_, i) => ({ name: `f${i}.bin`, data: Buffer.alloc(1024 * 1024 - 1, i) })),
    ],
  ])('refuses a zip with %s, serving nothing of it', async (_label, entries) => {
    const live = (await api('GET', '/api/deployments/metadata')).json.currentDeploymentId;
    const { id, res } = await upload(makeZip(entries));
    expect(res.statusCode).toBe(204);
    const started = await api('POST', `/api/deployments/${id}/start`, {});
    expect(started.statusCode).toBeGreaterThanOrEqual(400);
    expect(started.statusCode).toBeLessThan(500);
    expect(started.json.nextActions).toEqual(expect.any(String));
    expect((await api('GET', `/api/deployments/${id}`)).json.status).toBe('ERROR');
    expect((await api('GET', '/api/deployments/metadata')).json.currentDeploymentId).toBe(live);
  });
});

describe('retention', () => {
  it('prunes READY deployments past the retention, never the live one, and forgets bytes nobody uses', async () => {
    const old = await deploy([file('index.html', '<title>old</title>'), file('old-only.txt', 'only in old')]);
    const newest = await deploy([file('index.html', '<title>new</title>')]);
    // Rollback to the old one, then keep a single READY deployment: the newest, and the live one.
    await api('POST', `/api/deployments/${old.created.id}/promote`);
    expect((await api('PATCH', '/api/deployments/site', { retention: 1 })).json.retention).toBe(1);
    const ready = (await api('GET', '/api/deployments')).json.filter((d: { status: string }) => d.status === 'READY');
    expect(ready.map((d: { id: string }) => d.id).sort()).toEqual([old.created.id, newest.created.id].sort());
    expect((await site('/')).body).toContain('<title>old</title>');

    // Once the old one is no longer live and the grace period passed, its bytes go too.
    await api('POST', `/api/deployments/${newest.created.id}/promote`);
    t.clock.advance(2 * 60 * 60 * 1000);
    await api('PATCH', '/api/deployments/site', { retention: 1 });
    expect((await api('GET', `/api/deployments/${old.created.id}`)).statusCode).toBe(404);
    const [held] = await t.deps
      .sql`select count(*)::int as n from deployments.blobs where sha = ${sha1('only in old')}`;
    expect(held!.n).toBe(0);
    expect((await site('/')).body).toContain('<title>new</title>');
    await api('PATCH', '/api/deployments/site', { retention: 10 });
  });
});
