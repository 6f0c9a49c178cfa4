// Functions management and invocation against the real Deno runtime: deploy, invoke, update,
// delete, both code forms, bodies byte for byte, headers and status, the 404 variants, credentials.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

let t: FunctionsApp;
beforeAll(async () => {
  t = await startFunctionsApp();
});
afterAll(() => t?.close());

const admin = () => ({ 'x-api-key': t.apiKey });
const invoke = (slug: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}/functions/${slug}`, {
    ...init,
    headers: { ...bearer(t.anonKey), ...(init.headers as Record<string, string>) },
  });

const ECHO = `export default async function (req: Request) {
  const url = new URL(req.url);
  return new Response(req.body, {
    status: Number(url.searchParams.get('status') ?? 200),
    headers: {
      'content-type': req.headers.get('content-type') ?? 'application/octet-stream',
      'x-method': req.method,
      'x-query': url.search,
      'x-seen-header': req.headers.get('x-custom') ?? '',
      'x-url': req.url,
    },
  });
}`;

describe('management', () => {
  it('creates, lists, reads, invokes, updates and deletes a function', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/functions',
      headers: admin(),
      payload: {
        name: 'Hello World',
        code: 'export default async function () { return new Response("v1"); }',
        description: 'greets',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json).toMatchObject({
      success: true,
      function: {
        slug: 'hello-world',
        name: 'Hello World',
        description: 'greets',
        status: 'active',
        verifyJwt: true,
        version: 1,
      },
      deployment: { status: 'success', url: `${t.baseUrl}/functions/hello-world` },
    });
    expect(created.json.function.deployedAt).not.toBeNull();

    const list = await t.request({ method: 'GET', url: '/api/functions', headers: admin() });
    expect(list.statusCode).toBe(200);
    expect(list.json.runtime).toEqual({ status: 'running' });
    expect(list.json.functions.map((f: { slug: string }) => f.slug)).toContain('hello-world');
    expect(list.json.functions[0].code).toBeUndefined();

    const one = await t.request({ method: 'GET', url: '/api/functions/hello-world', headers: admin() });
    expect(one.json).toMatchObject({ slug: 'hello-world', code: expect.stringContaining('v1') });

    expect(await (await invoke('hello-world')).text()).toBe('v1');

    const updated = await t.request({
      method: 'PUT',
      url: '/api/functions/hello-world',
      headers: admin(),
      payload: { code: 'export default async function () { return new Response("v2"); }' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json).toMatchObject({ success: true, function: { version: 2 }, deployment: { status: 'success' } });
    expect(await (await invoke('hello-world')).text()).toBe('v2');

    const deleted = await t.request({ method: 'DELETE', url: '/api/functions/hello-world', headers: admin() });
    expect(deleted.json).toEqual({ success: true, message: 'Function hello-world deleted successfully' });
    const gone = await invoke('hello-world');
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('application/json');
    expect(await gone.json()).toMatchObject({ error: 'FUNCTION_NOT_FOUND', statusCode: 404 });

    const again = await t.request({ method: 'DELETE', url: '/api/functions/hello-world', headers: admin() });
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: 'FUNCTION_NOT_FOUND', statusCode: 404 });
    expect((await t.request({ method: 'GET', url: '/api/functions/hello-world', headers: admin() })).statusCode).toBe(
      404,
    );
    expect(
      (await t.request({ method: 'PUT', url: '/api/functions/hello-world', headers: admin(), payload: { name: 'x' } }))
        .statusCode,
    ).toBe(404);
  });

  it('runs the legacy module.exports form and TypeScript', async () => {
    await t.deploy(
      'legacy',
      'module.exports = async function (req) {\n  return new Response("legacy " + req.method);\n};',
    );
    expect(await (await invoke('legacy', { method: 'PATCH' })).text()).toBe('legacy PATCH');
    await t.deploy(
      'typed',
      'const n: number = 41;\nexport default (_req: Request): Response => new Response(String(n + 1));',
    );
    expect(await (await invoke('typed')).text()).toBe('42');
  });

  it('reports a syntax error at deploy time with its line, and stores nothing', async () => {
    const res = await t.deploy('broken', 'const a = 1;\nconst b = ;\nexport default () => new Response("x");');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'FUNCTION_DEPLOY_FAILED', statusCode: 400, details: { line: 2 } });
    expect(res.json.message).toContain('line 2');
    expect((await t.request({ method: 'GET', url: '/api/functions/broken', headers: admin() })).statusCode).toBe(404);
    expect((await invoke('broken')).status).toBe(404);
  });

  it('reports an error thrown while the code loads at its line', async () => {
    const res = await t.deploy(
      'throws-at-load',
      'const a = 1;\nthrow new Error("at load " + a);\nexport default () => new Response("x");',
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'FUNCTION_DEPLOY_FAILED', details: { line: 2, column: 7 } });
  });

  it('keeps serving the previous version when an update does not load', async () => {
    await t.deploy('stable', 'export default () => new Response("good");');
    const res = await t.request({
      method: 'PUT',
      url: '/api/functions/stable',
      headers: admin(),
      payload: { code: 'export default () => {' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('FUNCTION_DEPLOY_FAILED');
    expect(await (await invoke('stable')).text()).toBe('good');
    const stored = await t.request({ method: 'GET', url: '/api/functions/stable', headers: admin() });
    expect(stored.json).toMatchObject({ version: 1, code: 'export default () => new Response("good");' });
  });

  it('rejects code without a default handler', async () => {
    const res = await t.deploy('nohandler', 'export const x = 1;');
    expect(res.statusCode).toBe(400);
    expect(res.json.message).toContain('default handler');
  });

  it('serves a draft only once it is active', async () => {
    const res = await t.deploy('drafty', 'export default () => new Response("live");', { status: 'draft' });
    expect(res.json).toMatchObject({ function: { status: 'draft', deployedAt: null }, deployment: null });
    expect((await invoke('drafty')).status).toBe(404);
    await t.request({ method: 'PUT', url: '/api/functions/drafty', headers: admin(), payload: { status: 'active' } });
    expect(await (await invoke('drafty')).text()).toBe('live');
  });

  it.each([
    ['a slug with a dot', { name: 'x', slug: 'a.b', code: 'x' }, 400, 'VALIDATION_ERROR'],
    [
      'the reserved slug health',
      { name: 'health', code: 'export default () => new Response()' },
      400,
      'FUNCTION_SLUG_RESERVED',
    ],
    ['empty code', { name: 'empty', code: '' }, 400, 'VALIDATION_ERROR'],
    ['an unknown status', { name: 'st', code: 'x', status: 'error' }, 400, 'VALIDATION_ERROR'],
    ['an unknown field', { name: 'uf', code: 'x', runtime: 'node' }, 400, 'VALIDATION_ERROR'],
  ])('rejects %s', async (_label, payload, status, error) => {
    const res = await t.request({ method: 'POST', url: '/api/functions', headers: admin(), payload });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json.error).toBe(error);
  });

  it('answers 409 for a slug that exists', async () => {
    await t.deploy('taken', 'export default () => new Response("1");');
    const res = await t.request({
      method: 'POST',
      url: '/api/functions',
      headers: admin(),
      payload: { name: 'taken', code: 'export default () => new Response("2");' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json.error).toBe('FUNCTION_ALREADY_EXISTS');
    expect(await (await invoke('taken')).text()).toBe('1');
  });
});

describe('invocation', () => {
  beforeAll(async () => {
    expect((await t.deploy('echo', ECHO)).statusCode).toBe(201);
  });

  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])(
    'passes %s, the query and headers through, and the status and headers back',
    async (method) => {
      const res = await invoke('echo?status=201&a=1&a=2', { method, headers: { 'x-custom': 'hello' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-method')).toBe(method);
      expect(res.headers.get('x-query')).toBe('?status=201&a=1&a=2');
      expect(res.headers.get('x-seen-header')).toBe('hello');
      expect(res.headers.get('x-url')).toBe(`${t.baseUrl}/functions/echo?status=201&a=1&a=2`);
      // Plinth's own headers come along: the request id and CORS.
      expect(res.headers.get('x-request-id')).toMatch(/.+/);
    },
  );

  it("answers HEAD with the function's status and headers and no body", async () => {
    const res = await invoke('echo?status=202', { method: 'HEAD', headers: { 'x-custom': 'head' } });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-method')).toBe('HEAD');
    expect(res.headers.get('x-seen-header')).toBe('head');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers CORS requests from a browser like every other route', async () => {
    const res = await invoke('echo', { headers: { origin: 'https://app.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it.each([
    ['binary', 'application/octet-stream', randomBytes(256 * 1024)],
    ['plain text', 'text/plain', Buffer.from('plain ünïcode text\n')],
    ['spaced JSON', 'application/json', Buffer.from('{ "a" :1,\n  "b": [ 2 ] }')],
    ['form', 'application/x-www-form-urlencoded', Buffer.from('a=1&b=%20two')],
    ['XML', 'application/xml', Buffer.from('<a><b/></a>')],
    ['content-type-less', '', Buffer.from([0, 1, 2, 255])],
  ])('round-trips a %s body byte for byte', async (_label, type, body) => {
    const res = await invoke('echo', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it('round-trips a body larger than the JSON body limit', async () => {
    const body = randomBytes(t.config.maxBodyBytes * 3);
    const res = await invoke('echo', { method: 'PUT', body, headers: { 'content-type': 'image/png' } });
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it.each([
    ['a slug with a dot', '/functions/foo.bar'],
    ['a path below a slug', '/functions/echo/extra'],
  ])('answers text/plain 404 for %s', async (_label, path) => {
    const res = await fetch(`${t.baseUrl}${path}`, { headers: bearer(t.anonKey) });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/plain');
  });

  // The reference answers a bare {error}; clients then show no message (issue 36).
  const notFound = (slug: string) => ({
    error: 'FUNCTION_NOT_FOUND',
    message: `Function "${slug}" not found or not active.`,
    statusCode: 404,
    nextActions: expect.stringContaining('GET /api/functions'),
  });

  it.each([
    ['POST /functions/{slug}', '/functions/no_such-fn', {}],
    ['GET /functions/{slug}', '/functions/no_such-fn', { method: 'GET' }],
    ['a trailing slash', '/functions/no_such-fn/', { method: 'PUT', body: '{}' }],
    ['with an Idempotency-Key', '/functions/no_such-fn', { method: 'POST', headers: { 'idempotency-key': 'k-1' } }],
    ["Supabase's /functions/v1/{slug}", '/functions/v1/no_such-fn', { method: 'POST', body: '{}' }],
    ['a draft (not active) function', '/functions/drafted', {}],
  ] as const)('answers the error shape with a message and nextActions: %s', async (_label, path, init) => {
    if (path.endsWith('drafted')) {
      const draft = await t.request({
        method: 'POST',
        url: '/api/functions',
        headers: admin(),
        payload: { name: 'Drafted', slug: 'drafted', code: 'export default () => new Response("no")', status: 'draft' },
      });
      expect(draft.statusCode, draft.body).toBe(201);
    }
    const res = await fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      ...init,
      headers: { ...bearer(t.anonKey), ...((init as RequestInit).headers as Record<string, string>) },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual(notFound(path.endsWith('drafted') ? 'drafted' : 'no_such-fn'));
  });

  it('the runtime answers the same shape for a slug it does not hold (a call racing a deploy)', async () => {
    const res = await fetch(`http://127.0.0.1:${t.deps.runtime.port}/no_such-fn`, {
      method: 'POST',
      headers: { 'x-plinth-runtime-token': t.deps.runtime.token },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(notFound('no_such-fn'));
  });
});

describe('function failures', () => {
  it.each([
    ['throws an error', 'throw new Error("boom")', 500, { error: 'FUNCTION_ERROR', message: 'boom', statusCode: 500 }],
    [
      'throws an error with a status',
      'throw Object.assign(new Error("nope"), { status: 418 })',
      418,
      { error: 'FUNCTION_ERROR', message: 'nope' },
    ],
    [
      'returns something else than a Response',
      'return { ok: true }',
      500,
      { error: 'FUNCTION_ERROR', message: 'The function did not return a Response.' },
    ],
  ])('a function that %s answers in the error shape', async (_label, statement, status, body) => {
    const slug = `fails-${status}-${_label.length}`;
    await t.deploy(slug, `export default async () => { ${statement}; };`);
    const res = await invoke(slug);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject(body);
  });

  it('a thrown Response is the answer', async () => {
    await t.deploy('thrower', 'export default () => { throw new Response("teapot", { status: 418 }); };');
    const res = await invoke('thrower');
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('teapot');
  });
});

describe('credentials', () => {
  beforeAll(async () => {
    await t.deploy('guarded', 'export default (req) => new Response(req.headers.get("authorization") ?? "none");');
    await t.deploy('webhook', 'export default () => new Response("open");', { verifyJwt: false });
  });

  it('a function needs a credential by default', async () => {
    const user = await t.signUp();
    for (const headers of [
      bearer(t.anonKey),
      bearer(user.accessToken),
      { 'x-api-key': t.apiKey },
      bearer(await t.adminToken()),
    ]) {
      const res = await fetch(`${t.baseUrl}/functions/guarded`, { headers });
      expect(res.status).toBe(200);
    }
    // The function reads the caller's credential itself.
    expect(await (await fetch(`${t.baseUrl}/functions/guarded`, { headers: bearer(user.accessToken) })).text()).toBe(
      `Bearer ${user.accessToken}`,
    );
    for (const headers of [{}, bearer('garbage'), bearer(`anon_${'0'.repeat(64)}`)]) {
      const res = await fetch(`${t.baseUrl}/functions/guarded`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'UNAUTHORIZED', statusCode: 401 });
    }
  });

  it('a function created with verifyJwt false is open (webhooks)', async () => {
    const res = await fetch(`${t.baseUrl}/functions/webhook`, { method: 'POST', body: 'event' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('open');
  });
});
