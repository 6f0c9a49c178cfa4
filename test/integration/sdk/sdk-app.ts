// Plinth listening on a loopback port for the official JavaScript client (@insforge/sdk), with the
// peers a file asks for (SMTP, processor, the Deno function runtime), SDK clients as apps build
// them, and a browser stand-in (cookie jar + document.cookie) for the client's web mode.
import { createClient, type InsForgeClient } from '@insforge/sdk';
import { freePort } from '../../harness/free-port.js';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { startProcessorPeer, type ProcessorPeer } from '../../harness/processor-peer.js';
import { startSmtpPeer, type SmtpPeer } from '../../harness/smtp-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

export interface SdkApp {
  t: TestApp;
  baseUrl: string;
  smtp?: SmtpPeer;
  processor?: ProcessorPeer;
  /** Deploys a function as the admin (only with `functions: true`). */
  deploy?: FunctionsApp['deploy'];
  /** A client as a Node app makes it: `createClient({ baseUrl, anonKey })` plus options. */
  client(options?: Parameters<typeof createClient>[0]): InsForgeClient;
  close(): Promise<void>;
}

export async function startSdkApp(
  options: { smtp?: boolean; processor?: boolean; functions?: boolean; env?: Record<string, string> } = {},
): Promise<SdkApp> {
  const smtp = options.smtp ? await startSmtpPeer() : undefined;
  const processor = options.processor ? await startProcessorPeer() : undefined;
  const env = { ...smtp?.env, ...processor?.env, ...options.env };
  let t: TestApp;
  let baseUrl: string;
  let deploy: FunctionsApp['deploy'] | undefined;
  if (options.functions) {
    const f = await startFunctionsApp(env);
    ({ baseUrl, deploy } = f);
    t = f;
  } else {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { API_BASE_URL: baseUrl, ...env } });
    await t.app.listen({ port, host: '127.0.0.1' });
  }
  return {
    t,
    baseUrl,
    smtp,
    processor,
    deploy,
    // retryCount 0: a 5xx must fail the test at once, not be retried with back-off.
    client: (extra = {}) => createClient({ baseUrl, anonKey: t.anonKey, retryCount: 0, ...extra }),
    async close() {
      await t.close();
      await smtp?.close();
      await processor?.close();
    },
  };
}

/**
 * What a browser gives the client: a cookie jar behind `fetch` (credentials: include), the
 * `Origin` header, and `document.cookie`, where the client keeps the CSRF token. Install it before creating the client.
 */
export function installBrowser() {
  const jar = new Map<string, { value: string; path: string }>();
  const pageCookies = new Map<string, string>();
  const previous = (globalThis as { document?: unknown }).document;
  (globalThis as { document?: unknown }).document = {
    get cookie() {
      return [...pageCookies].map(([k, v]) => `${k}=${v}`).join('; ');
    },
    set cookie(line: string) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) pageCookies.delete(name);
      else pageCookies.set(name, pair.slice(eq + 1));
    },
  };
  const fetchWithJar: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers);
    const sent = [...jar].filter(([, c]) => url.pathname.startsWith(c.path)).map(([k, c]) => `${k}=${c.value}`);
    if (sent.length > 0) headers.set('cookie', sent.join('; '));
    // A browser names the page's origin on every request but GET and HEAD (the page is served
    // from the API's own origin here).
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && !headers.has('origin')) headers.set('origin', url.origin);
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const expired =
        value === '' ||
        attrs.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
      if (expired) jar.delete(name);
      else jar.set(name, { value, path });
    }
    return response;
  };
  return {
    fetch: fetchWithJar,
    jar,
    pageCookies,
    uninstall() {
      (globalThis as { document?: unknown }).document = previous;
    },
  };
}

/**
 * The page the client runs on, for its browser-only paths: `window.location` (where the client
 * looks for `insforge_code` on start-up and which signInWithOAuth navigates by setting `href`),
 * `window.history.replaceState` (how it cleans the URL) and `sessionStorage` (the PKCE verifier).
 */
export function openPage(href: string) {
  const g = globalThis as { window?: unknown; sessionStorage?: unknown };
  const previous = { window: g.window, sessionStorage: g.sessionStorage };
  const stored = new Map<string, string>();
  const location = {
    href,
    get search() {
      return new URL(this.href).search;
    },
    get protocol() {
      return new URL(this.href).protocol;
    },
  };
  g.window = {
    location,
    history: {
      replaceState(_state: unknown, _title: unknown, url: string) {
        location.href = url;
      },
    },
  };
  g.sessionStorage = {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => void stored.set(key, value),
    removeItem: (key: string) => void stored.delete(key),
  };
  return {
    location,
    sessionStorage: stored,
    /** A navigation: the next client created reads this URL as the page it starts on. */
    navigate(to: string) {
      location.href = to;
    },
    close() {
      g.window = previous.window;
      g.sessionStorage = previous.sessionStorage;
    },
  };
}
