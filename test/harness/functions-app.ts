// Plinth with its real Deno function runtime started, listening on a loopback port (streaming
// tests need a real socket), and a helper to deploy a function as the admin.
import { freePort } from './free-port.js';
import { startTestApp, type TestApp } from './test-app.js';

export interface FunctionsApp extends TestApp {
  baseUrl: string;
  /** Creates (or replaces) an active function; returns the API's answer. */
  deploy(slug: string, code: string, extra?: Record<string, unknown>): Promise<Awaited<ReturnType<TestApp['request']>>>;
}

/** `port`: where it listens (a balancer in front may need to know it first); a free one by default. */
export async function startFunctionsApp(env: Record<string, string> = {}, port?: number): Promise<FunctionsApp> {
  port ??= await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { FUNCTIONS_RUNTIME_PORT: '0', API_BASE_URL: baseUrl, ...env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  await t.deps.runtime.start();
  return {
    ...t,
    baseUrl,
    async deploy(slug, code, extra = {}) {
      await t.request({ method: 'DELETE', url: `/api/functions/${slug}`, headers: { 'x-api-key': t.apiKey } });
      return t.request({
        method: 'POST',
        url: '/api/functions',
        headers: { 'x-api-key': t.apiKey },
        payload: { name: slug, slug, code, ...extra },
      });
    },
  };
}
