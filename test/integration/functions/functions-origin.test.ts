// FUNCTIONS_ORIGIN on a real socket: function answers only on their own host (there unsandboxed,
// as FUNCTIONS_SANDBOX=false asks), refused as documents on the API's host, and that host serves
// nothing but functions. Host names are *.localhost on loopback, as a browser would use them.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { type FunctionsApp, startFunctionsApp } from '../../harness/functions-app.js';

let t: FunctionsApp;
let port: number;
let functionsOrigin: string;

beforeAll(async () => {
  port = await freePort();
  functionsOrigin = `http://fn.localhost:${port}`;
  t = await startFunctionsApp({ FUNCTIONS_ORIGIN: functionsOrigin, FUNCTIONS_SANDBOX: 'false' }, port);
  const deployed = await t.deploy(
    'page',
    `export default (req) => new Response('<h1>' + req.url + '</h1>', { headers: { 'content-type': 'text/html' } });`,
    { verifyJwt: false },
  );
  expect(deployed.json.deployment?.url ?? deployed.json.url).toBe(`${functionsOrigin}/functions/page`);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A GET to the server's port with the Host a browser would send for `host`. */
function get(host: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('FUNCTIONS_ORIGIN', () => {
  it('serves function answers on the functions host, unsandboxed when FUNCTIONS_SANDBOX=false', async () => {
    const res = await get(`fn.localhost:${port}`, '/functions/page?x=1');
    expect(res.status).toBe(200);
    expect(res.body).toBe(`<h1>${functionsOrigin}/functions/page?x=1</h1>`);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it("refuses a function answer as a document on the API's host, with where to go", async () => {
    const res = await get(`127.0.0.1:${port}`, '/functions/page', { 'sec-fetch-dest': 'document' });
    expect(res.status).toBe(404);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
    expect(body.nextActions).toContain(`${functionsOrigin}/functions/{slug}`);
    expect((await get(`127.0.0.1:${port}`, '/functions/page')).status).toBe(404);
  });

  it("gives a page's fetch (the dashboard's Invoke panel) the answer on the API's host: data, never a document", async () => {
    const res = await get(`127.0.0.1:${port}`, '/functions/page', { 'sec-fetch-dest': 'empty' });
    expect(res.status).toBe(200);
  });

  it('the functions host serves nothing else: not the API, not the dashboard', async () => {
    for (const path of ['/api/health', '/dashboard/', '/api/auth/admin/refresh', '/storage/v1/s3/']) {
      const res = await get(`fn.localhost:${port}`, path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body), path).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
    }
    expect((await get(`127.0.0.1:${port}`, '/api/health')).status).toBe(200);
  });
});
