// Sites end to end, as an agent deploys an app: the official agent server (@insforge/mcp) drives
// Plinth's deployments API unchanged — create-deployment in its local (stdio) mode uploads the
// sources and starts a build; in its remote mode it answers an upload script, which we run, and
// start-deployment starts it — and Chromium loads the site on its own origin
// (http://app.localhost:PORT): the page calls the API with the official client (@insforge/sdk,
// bundled by the app's build) across origins, and renders the rows it read.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { type BrowserSession, openBrowser, signInAsAdmin } from './browser.js';

const MCP_DIST = fileURLToPath(new URL('../../node_modules/@insforge/mcp/dist/', import.meta.url));
const SDK_ENTRY = fileURLToPath(new URL('../../node_modules/@insforge/sdk/dist/index.mjs', import.meta.url));
const run = promisify(execFile);

let t: TestApp;
let base: string;
let siteUrl: string;
let source: string;
let browser: BrowserSession;
const clients: Client[] = [];

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content.map((c) => c.text).join('\n');
  expect(result.isError ?? false, `${name}: ${text}`).toBe(false);
  return text;
}

const api = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });

async function ready(id: string) {
  await expect
    .poll(async () => (await api('GET', `/api/deployments/${id}`)).json.status, { timeout: 60_000, interval: 200 })
    .toMatch(/^(READY|ERROR)$/);
  const deployment = (await api('GET', `/api/deployments/${id}`)).json;
  const log = (await api('GET', `/api/deployments/${id}/logs`)).json.log;
  expect(deployment.status, `${JSON.stringify(deployment.metadata)}\n${log}`).toBe('READY');
  return deployment;
}

/** The app's sources: a page, a script calling the API with the official client, and a build. */
async function writeApp(dir: string, heading: string) {
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await mkdir(path.join(dir, 'vendor'), { recursive: true });
  const sdk = await build({
    entryPoints: [SDK_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    minify: true,
    external: ['crypto'],
  });
  await writeFile(path.join(dir, 'vendor', 'insforge-sdk.js'), sdk.outputFiles[0]!.contents);
  await writeFile(path.join(dir, 'package.json'), '{"name":"todo-site","private":true,"type":"module"}');
  await writeFile(
    path.join(dir, 'src', 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Todos</title></head>
<body><h1>${heading}</h1><ul id="todos" aria-busy="true"></ul><script type="module" src="/assets/APP_JS"></script></body></html>`,
  );
  await writeFile(
    path.join(dir, 'src', 'app.js'),
    `import { createClient } from './SDK_JS';
const client = createClient({ baseUrl: __API_BASE_URL__, anonKey: __ANON_KEY__ });
const list = document.getElementById('todos');
const { data, error } = await client.database.from('todos').select('id, title').order('id');
if (error) list.innerHTML = '<li class="error">' + error.message + '</li>';
else for (const row of data) { const li = document.createElement('li'); li.textContent = row.title; list.append(li); }
list.setAttribute('aria-busy', 'false');
`,
  );
  // The build: content-hashed assets and the variables of the deployment put in, as Vite does.
  await writeFile(
    path.join(dir, 'build.mjs'),
    `import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
const hash = (text) => createHash('sha256').update(text).digest('hex').slice(0, 10);
mkdirSync('out/assets', { recursive: true });
const sdk = readFileSync('vendor/insforge-sdk.js', 'utf8');
const sdkName = 'sdk.' + hash(sdk) + '.js';
const app = readFileSync('src/app.js', 'utf8').replace('SDK_JS', sdkName)
  .replace('__API_BASE_URL__', JSON.stringify(process.env.VITE_INSFORGE_BASE_URL))
  .replace('__ANON_KEY__', JSON.stringify(process.env.VITE_INSFORGE_ANON_KEY));
const appName = 'app.' + hash(app) + '.js';
writeFileSync('out/assets/' + sdkName, sdk);
writeFileSync('out/assets/' + appName, app);
writeFileSync('out/index.html', readFileSync('src/index.html', 'utf8').replace('APP_JS', appName));
console.log('built', appName, sdkName);
`,
  );
}

const startBody = () => ({
  projectSettings: { buildCommand: 'node build.mjs', outputDirectory: 'out' },
  envVars: [
    { key: 'VITE_INSFORGE_BASE_URL', value: base },
    { key: 'VITE_INSFORGE_ANON_KEY', value: t.anonKey },
  ],
  meta: { source: 'agent' },
});

/** The rendered todo titles once the page's API call finished. */
async function renderedTodos(url: string): Promise<{ heading: string; todos: string[] }> {
  const { page } = browser;
  await page.goto(url);
  await page.locator('#todos[aria-busy="false"]').waitFor();
  return {
    heading: (await page.locator('h1').textContent()) ?? '',
    todos: await page.locator('#todos li').allTextContents(),
  };
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  // A CORS list naming some other console: the site's origin is allowed without being listed.
  t = await startTestApp({
    env: { PORT: String(port), API_BASE_URL: base, CORS_ORIGINS: 'https://console.example.com' },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  siteUrl = `http://app.localhost:${port}/`;
  source = await mkdtemp(path.join(tmpdir(), 'plinth-site-src-'));
  await writeApp(source, 'Todos v1');

  // The data the page reads: a table anyone may read, made through the API as an agent would.
  const sql = async (query: string) => {
    const res = await api('POST', '/api/database/advance/rawsql', { query });
    expect(res.statusCode, res.body).toBe(200);
  };
  await sql('create table todos (id int primary key, title text not null)');
  await sql(`create policy "anyone reads" on todos for select to anon using (true)`);
  await sql(`insert into todos values (1, 'Write the site'), (2, 'Deploy it with the agent')`);

  const local = new Client({ name: 'plinth-sites-test', version: '1.0.0' });
  await local.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(MCP_DIST, 'index.js'), '--api_key', t.apiKey, '--api_base_url', base],
      stderr: 'ignore',
    }),
  );
  clients.push(local);
  browser = await openBrowser();
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await browser?.close();
  await t?.close();
});

describe('an agent deploys the app and Chromium loads it', () => {
  it('create-deployment (local agent server) uploads the sources, builds, and the site renders API data', async () => {
    const text = await tool(clients[0]!, 'create-deployment', { sourceDirectory: source, ...startBody() });
    expect(text).toContain('Deployment started');
    const id = /"id": "([0-9a-f-]{36})"/.exec(text)![1]!;
    const deployment = await ready(id);
    expect(deployment.url).toBe(`${siteUrl.replace(/\/$/, '')}`);
    expect(deployment.live).toBe(true);

    const { heading, todos } = await renderedTodos(siteUrl);
    expect(heading).toBe('Todos v1');
    expect(todos).toEqual(['Write the site', 'Deploy it with the agent']);
    expect(browser.errors).toEqual([]);
    await browser.screenshot('sites-agent-v1');
  });

  it('create-deployment (remote agent server) answers an upload script; start-deployment starts what it uploaded', async () => {
    // The agent server's own tool code in its remote mode, in process (its HTTP host needs Redis).
    const chunk = readdirSync(MCP_DIST).find((f) => f.startsWith('chunk-') && f.endsWith('.js'))!;
    const { registerInsforgeTools } = await import(pathToFileURL(path.join(MCP_DIST, chunk)).href);
    const server = new McpServer({ name: 'insforge-mcp', version: '1.0.0' });
    await registerInsforgeTools(server, { apiKey: t.apiKey, apiBaseUrl: base, mode: 'remote' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const remote = new Client({ name: 'plinth-sites-remote', version: '1.0.0' });
    await remote.connect(clientSide);
    clients.push(remote);

    await writeApp(source, 'Todos v2');
    const instructions = await tool(remote, 'create-deployment', { sourceDirectory: source });
    const script = /```bash\n([\s\S]*?)\n```/.exec(instructions)![1]!;
    const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, INSFORGE_API_KEY: t.apiKey } });
    const id = /Deployment ID: ([0-9a-f-]{36})/.exec(stdout)![1]!;
    // Only the files that changed were asked for: the SDK bundle was held already.
    expect(stdout).toMatch(/Uploaded [1-3] files/);

    const started = await tool(remote, 'start-deployment', { deploymentId: id, ...startBody() });
    expect(started).toContain('Deployment started');
    await ready(id);

    const { heading, todos } = await renderedTodos(siteUrl);
    expect(heading).toBe('Todos v2');
    expect(todos).toHaveLength(2);
    expect(browser.errors).toEqual([]);
  });

  it('rolls back in one call, and the browser gets the earlier deployment at once', async () => {
    const list = (await api('GET', '/api/deployments')).json as { id: string; status: string; live: boolean }[];
    const earlier = list.filter((d) => d.status === 'READY' && !d.live)[0]!;
    expect((await api('POST', `/api/deployments/${earlier.id}/promote`)).json.live).toBe(true);
    expect((await renderedTodos(siteUrl)).heading).toBe('Todos v1');
  });

  it("cannot take the admin's dashboard session from a site page, though the site's origin has CORS with credentials", async () => {
    const { page } = browser;
    await signInAsAdmin(page, `${base}/dashboard/`);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const refresh = (apiBase: string) =>
      fetch(`${apiBase}/api/auth/admin/refresh?client_type=web`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }).then(async (r) => ({ status: r.status, body: await r.text() }));
    // The dashboard itself (same origin) can refresh: the session is there to steal.
    expect((await page.evaluate(refresh, base)).status).toBe(200);
    // A script of the site, in the same browser, cannot.
    await page.goto(siteUrl);
    const stolen = await page.evaluate(refresh, base).catch((err: Error) => ({ status: 0, body: err.message }));
    expect(stolen.status).not.toBe(200);
    expect(stolen.body).not.toContain('accessToken');
    // Nor can it read the API key with the cookies the browser holds (refused, or not readable).
    const key = await page.evaluate(
      (apiBase) =>
        fetch(`${apiBase}/api/metadata/api-key`, { credentials: 'include' }).then(
          (r) => r.status,
          () => 0,
        ),
      base,
    );
    expect(key).not.toBe(200);
  });

  it("never runs the site's page on the API's origin, and the API never answers on the site's", async () => {
    const { page } = browser;
    // The API host's / is not the site.
    await page.goto(`${base}/index.html`);
    expect(await page.content()).not.toContain('Todos v1');
    const onSite = await page.goto(`${siteUrl}api/health`);
    expect(onSite?.status()).toBe(404);
  });
});
