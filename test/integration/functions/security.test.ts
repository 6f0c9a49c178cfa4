// Hostile traffic through the functions proxy over a real socket: what a client may not smuggle
// to a function (runtime token, spoofed forwarding headers), and what a function may not send back.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

let t: FunctionsApp;

beforeAll(async () => {
  t = await startFunctionsApp();
  await t.deploy(
    'echo',
    'export default (req) => Response.json({ url: req.url, headers: Object.fromEntries(req.headers) });',
  );
  // Calls the runtime's control API from inside a function, with the token it guesses.
  await t.deploy(
    'prober',
    `export default async (req) => {
    const q = new URL(req.url).searchParams;
    try {
      const res = await fetch('http://127.0.0.1:' + q.get('port') + '/_plinth/functions', { headers: { 'x-plinth-runtime-token': q.get('token') ?? '' } });
      return new Response(String(res.status));
    } catch (err) {
      return new Response(err.name);
    }
  };`,
  );
  // Reflects ?n= into a response header, as functions do with a client's input.
  await t.deploy(
    'reflect',
    `export default (req) => {
    const n = new URL(req.url).searchParams.get('n') ?? '';
    return new Response('ok', { headers: { 'x-name': String.fromCharCode(...new TextEncoder().encode(n)) } });
  };`,
  );
  // Echoes ?name= into HTML, and tries to lift any sandbox with a CSP of its own.
  await t.deploy(
    'hello-page',
    `export default (req) => new Response('<h1>Hello ' + new URL(req.url).searchParams.get('name') + '</h1>', {
    headers: { 'content-type': 'text/html', 'content-security-policy': "script-src 'unsafe-inline'" },
  });`,
  );
});
afterAll(async () => {
  await t?.close();
});

const invoke = (slug: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}/functions/${slug}`, {
    ...init,
    headers: { ...bearer(t.anonKey), ...(init.headers as Record<string, string>) },
  });

describe('what a function receives', () => {
  it('never sees the runtime token or spoofed forwarding headers', async () => {
    const res = await invoke('echo?a=1', {
      headers: {
        'x-plinth-runtime-token': 'guess',
        'x-plinth-url': 'http://evil/',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-proto': 'https',
      },
    });
    expect(res.status).toBe(200);
    const { url, headers } = await res.json();
    expect(url).toBe(`${t.baseUrl}/functions/echo?a=1`);
    expect(Object.keys(headers).filter((h) => h.startsWith('x-plinth-'))).toEqual([]);
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
  });
});

/** Writes `head` and `body` on a fresh connection; resolves with the first response's status line. */
async function rawStatus(head: string, body = ''): Promise<string> {
  const { port } = new URL(t.baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(head + body);
  let text = '';
  for await (const chunk of socket) {
    text += chunk;
    if (text.includes('\r\n')) break;
  }
  socket.destroy();
  return text.split('\r\n')[0]!;
}

describe('what a function can reach', () => {
  it("not the runtime's control API, without its token", async () => {
    const port = t.deps.runtime.port;
    for (const token of ['', 'x', '0'.repeat(64)]) {
      const res = await invoke(`prober?port=${port}&token=${token}`);
      // Loopback is denied to functions (network-policy.test.ts); the token would be checked too.
      expect(await res.text()).toBe('NotCapable');
    }
  });
});

describe('request framing through the proxy', () => {
  it('a GET with a body answers, with no hang and no desync', async () => {
    const auth = `Authorization: Bearer ${t.anonKey}\r\n`;
    const status = await rawStatus(
      `GET /functions/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 5\r\n\r\n`,
      'hello',
    );
    expect(status).toBe('HTTP/1.1 200 OK');
  }, 10_000);

  it('Transfer-Encoding and Content-Length together are refused (400)', async () => {
    const auth = `Authorization: Bearer ${t.anonKey}\r\n`;
    const status = await rawStatus(
      `POST /functions/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`,
      '0\r\n\r\n',
    );
    expect(status).toMatch(/^HTTP\/1.1 400/);
  }, 10_000);
});

describe('what a function sends back', () => {
  it('a header value HTTP cannot carry (reflected from a client) is a 502 for that call, and the runtime lives on', async () => {
    const res = await invoke('reflect?n=a%01b', { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'FUNCTION_ERROR', statusCode: 502 });
    const after = await invoke('echo', { signal: AbortSignal.timeout(5000) });
    expect(after.status).toBe(200);
    const fine = await invoke('reflect?n=caf%C3%A9%20ok', { signal: AbortSignal.timeout(5000) });
    expect(fine.status).toBe(200);
    expect(fine.headers.get('x-name')).toBe('cafÃ© ok');
  });
});

describe('a function answer as a page', () => {
  it('is a sandboxed document, never sniffed, whatever CSP the function sends', async () => {
    const res = await invoke('hello-page?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<h1>Hello <script>alert(1)</script></h1>');
    // Both policies reach the browser, which enforces each: the function's cannot lift the sandbox.
    const policies = res.headers.get('content-security-policy')?.split(', ');
    expect(policies).toEqual(["script-src 'unsafe-inline'", 'sandbox']);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
